// Servers' usage over time: CPU, memory, disk and network in/out for the last hour, day or
// month. With a real engine, reconciliation records what the engine read of each instance (a
// sample per round, averaged per hour for the month; both kept only as long as a graph shows
// them). With the simulated driver there is nothing to read: the series is derived
// (simulated-series.ts).

import type { Actor, Platform } from '../platform/context.ts';
import type { Queryable } from '../db/database.ts';
import { findServer } from '../servers/server.service.ts';
import type { ServerRow } from '../servers/server.table.ts';
import { serverMetricRepository, type UsageRates, type UsageSample } from './server-metric.repository.ts';
import { simulatedPoint } from './simulated-series.ts';
import type { MetricPoint } from './metric-point.ts';
import { transaction } from '../db/transaction.ts';

export type { MetricPoint };

/** What an engine reads of one instance (the compute seam's InstanceUsage). */
export interface UsageReading {
  /** CPU time used since the instance started, in ns. */
  cpuNs: number | null;
  memoryBytes: number | null;
  diskBytes: number | null;
  rxBytes: number;
  txBytes: number;
}

export const METRIC_PERIODS = ['hour', 'day', 'month'] as const;
export type MetricPeriod = (typeof METRIC_PERIODS)[number];

/** Each period's length and the step its points are averaged over. */
const periods: Record<MetricPeriod, { spanMs: number; stepMs: number }> = {
  hour: { spanMs: 3_600_000, stepMs: 60_000 },
  day: { spanMs: 86_400_000, stepMs: 600_000 },
  month: { spanMs: 30 * 86_400_000, stepMs: 3_600_000 },
};

const hourMs = 3_600_000;
/** Samples are kept a little over a day (the day's graph); hourly averages a little over a month. */
const sampleRetentionMs = 26 * hourMs;
const hourRetentionMs = 32 * 24 * hourMs;

export interface ServerMetrics {
  period: MetricPeriod;
  stepMs: number;
  from: number;
  to: number;
  /** Where the numbers come from: the engine's readings, or the simulated driver's derived series. */
  source: 'engine' | 'simulated';
  points: MetricPoint[];
}

const mb = (bytes: number | null) => (bytes === null ? null : bytes / 1_048_576);

/**
 * Records one reading of each observed instance at `now` (clock ms; `wallNow`: real ms, which the
 * engine's counters count in): rates since the server's previous reading, an hourly average
 * once an hour is over, and retention.
 */
export async function recordUsage(
  ctx: Platform,
  observations: ReadonlyMap<string, { usage?: UsageReading | null }>,
  now: number,
  wallNow = Date.now(),
): Promise<number> {
  const readings = [...observations].filter(
    (entry): entry is [string, { usage: UsageReading }] => entry[1].usage != null,
  );
  if (!readings.length) return 0;
  const servers = await serverMetricRepository.plansOf(
    ctx.db,
    readings.map(([uuid]) => uuid),
  );
  const vcpusOf = new Map(servers.map((row) => [row.uuid, ctx.catalog.plans.get(row.plan_id)?.vcpus ?? 1]));
  let recorded = 0;
  for (const [uuid, { usage }] of readings) {
    const vcpus = vcpusOf.get(uuid);
    if (vcpus === undefined) continue; // an instance whose server is gone
    await transaction(ctx, async (trx) => {
      const previous = await serverMetricRepository.latestSample(trx, uuid);
      const rates = ratesSince(previous, usage, wallNow, vcpus);
      await serverMetricRepository.insert(trx, {
        serverUuid: uuid,
        at: now,
        wallAt: wallNow,
        counters: {
          cpuNs: usage.cpuNs,
          rxBytes: usage.rxBytes,
          txBytes: usage.txBytes,
          memoryMb: mb(usage.memoryBytes),
          diskMb: mb(usage.diskBytes),
        },
        rates,
      });
      // The hours that ended since the previous sample (usually none, at most the one it was in).
      if (previous && Math.floor(previous.at / hourMs) < Math.floor(now / hourMs)) {
        const hour = Math.floor(previous.at / hourMs) * hourMs;
        await serverMetricRepository.rollUpHour(trx, uuid, hour, hour + hourMs);
      }
    });
    recorded++;
  }
  await serverMetricRepository.prune(ctx.db, 'sample', now - sampleRetentionMs);
  await serverMetricRepository.prune(ctx.db, 'hour', now - hourRetentionMs);
  return recorded;
}

/** CPU and network rates between two readings; none across a restart (the counters began again). */
function ratesSince(
  previous: UsageSample | undefined,
  usage: UsageReading,
  wallNow: number,
  vcpus: number,
): UsageRates {
  const none = { cpuPercent: null, rxBps: null, txBps: null };
  if (!previous || previous.wallAt === null || wallNow <= previous.wallAt) return none;
  const seconds = (wallNow - previous.wallAt) / 1000;
  const delta = (value: number | null, before: number | null) =>
    value === null || before === null || value < before ? null : value - before;
  const cpu = delta(usage.cpuNs, previous.cpuNs);
  const rx = delta(usage.rxBytes, previous.rxBytes);
  const tx = delta(usage.txBytes, previous.txBytes);
  return {
    cpuPercent: cpu === null ? null : Math.min(100, (cpu / 1e9 / seconds / vcpus) * 100),
    rxBps: rx === null ? null : rx / seconds,
    txBps: tx === null ? null : tx / seconds,
  };
}

/** The server's usage over the last `period`, averaged per step, oldest first. */
export async function serverMetrics(
  ctx: Platform,
  actor: Actor,
  ref: string | number,
  period: MetricPeriod,
): Promise<ServerMetrics> {
  const server = await findServer(ctx, ctx.db, actor.accountId, ref);
  const { spanMs, stepMs } = periods[period];
  const to = ctx.clock.now();
  const from = to - spanMs;
  if (!ctx.compute.engine)
    return { period, stepMs, from, to, source: 'simulated', points: simulated(ctx, server, from, to, stepMs) };
  return {
    period,
    stepMs,
    from,
    to,
    source: 'engine',
    points: await recorded(ctx.db, server.uuid, period, from, to, stepMs),
  };
}

function simulated(ctx: Platform, server: ServerRow, from: number, to: number, stepMs: number): MetricPoint[] {
  const plan = ctx.catalog.plans.get(server.plan_id);
  const shape = {
    uuid: server.uuid,
    memoryMb: plan?.ram_mb ?? 1024,
    diskGb: plan?.disk_gb ?? 25,
    createdAt: server.created_at,
  };
  const points: MetricPoint[] = [];
  const first = Math.ceil(Math.max(from, server.created_at) / stepMs) * stepMs;
  for (let at = first; at < to; at += stepMs) points.push(simulatedPoint(shape, at));
  return points;
}

async function recorded(
  db: Queryable,
  uuid: string,
  period: MetricPeriod,
  from: number,
  to: number,
  stepMs: number,
): Promise<MetricPoint[]> {
  const rows =
    period === 'month'
      ? [
          ...(await serverMetricRepository.window(db, uuid, 'hour', from, to)),
          // The hour under way has no average yet: its samples stand for it.
          ...(await serverMetricRepository.window(db, uuid, 'sample', Math.floor(to / hourMs) * hourMs, to + 1)),
        ]
      : await serverMetricRepository.window(db, uuid, 'sample', from, to + 1);
  const buckets = new Map<number, UsageSample[]>();
  for (const row of rows) {
    const at = Math.floor(row.at / stepMs) * stepMs;
    const bucket = buckets.get(at);
    if (bucket) bucket.push(row);
    else buckets.set(at, [row]);
  }
  return [...buckets].map(([at, bucket]) => ({
    at,
    cpu: average(bucket, 'cpuPercent', 1),
    memory_mb: average(bucket, 'memoryMb', 0),
    disk_mb: average(bucket, 'diskMb', 0),
    rx_bps: average(bucket, 'rxBps', 0),
    tx_bps: average(bucket, 'txBps', 0),
  }));
}

function average(
  samples: UsageSample[],
  measure: 'cpuPercent' | 'memoryMb' | 'diskMb' | 'rxBps' | 'txBps',
  digits: number,
): number | null {
  const values = samples.map((sample) => sample[measure]).filter((value): value is number => value !== null);
  if (!values.length) return null;
  return Number((values.reduce((sum, value) => sum + Number(value), 0) / values.length).toFixed(digits));
}
