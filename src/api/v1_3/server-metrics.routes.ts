// v1.3 extension: a server's usage graphs (CPU, memory, disk, network in/out) over the last
// hour, day or month. See src/server-metrics/.

import { Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { isoSeconds } from '../../platform/clock.ts';
import { METRIC_PERIODS, serverMetrics } from '../../server-metrics/server-metric.service.ts';
import { PathRef, responses, Timestamp } from './schemas.ts';

const Nullable = (description: string) => Type.Union([Type.Number(), Type.Null()], { description });

const MetricPoint = Type.Object(
  {
    time: Timestamp,
    cpu: Nullable("percent of the plan's vCPUs"),
    memory_mb: Nullable('memory in use, MB'),
    disk_mb: Nullable('disk in use, MB'),
    rx_bps: Nullable('network in, bytes per second'),
    tx_bps: Nullable('network out, bytes per second'),
  },
  { $id: 'ServerMetricPoint', description: 'the average over one step, starting at `time`; null: nothing read' },
);

const ServerMetrics = Type.Object(
  {
    period: Type.String({ enum: [...METRIC_PERIODS] }),
    step: Type.Integer({ description: 'seconds each point averages: 60 (hour), 600 (day), 3600 (month)' }),
    from: Timestamp,
    to: Timestamp,
    source: Type.String({
      enum: ['engine', 'simulated'],
      description:
        "engine: read from the machine at each reconciliation; simulated: the simulated driver's derived series",
    }),
    points: Type.Array(MetricPoint, { description: 'oldest first; a step with no reading is left out' }),
  },
  { $id: 'ServerMetrics' },
);

export function serverMetricsRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/server/metrics/:server_id',
    config: { access: 'account' },
    schema: {
      operationId: 'getServerMetrics',
      summary: "A server's usage graphs",
      description:
        "Extension (not in the spec): CPU, memory, disk and network in/out of the server over the last hour, day or month. With a real engine the numbers are what it read of the machine at each reconciliation (samples kept a day, hourly averages a month); the simulated driver answers a plausible series derived from the server's uuid and plan, the same every time.",
      tags: ['v1.3 servers'],
      params: Type.Object({ server_id: PathRef }),
      querystring: Type.Object({
        period: Type.Optional(Type.String({ enum: [...METRIC_PERIODS], default: 'hour' })),
      }),
      response: responses({ 200: ServerMetrics }, [400, 401, 404, 429]),
    },
    handler: async (request) => {
      const period = (request.query.period ?? 'hour') as (typeof METRIC_PERIODS)[number];
      const metrics = await serverMetrics(ctx, actorOf(request), request.params.server_id, period);
      return {
        period: metrics.period,
        step: metrics.stepMs / 1000,
        from: isoSeconds(metrics.from),
        to: isoSeconds(metrics.to),
        source: metrics.source,
        points: metrics.points.map(({ at, ...values }) => ({ time: isoSeconds(at), ...values })),
      };
    },
  });
}
