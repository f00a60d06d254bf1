// /metrics in the Prometheus text format: every request is observed (method, route pattern,
// status, seconds) by one cheap onResponse hook; the text is served on the API port to the
// holder of METRICS_TOKEN, or on a listener of its own (METRICS_PORT at METRICS_HOST).

import type { Server } from 'node:http';
import { once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import type { Platform } from '../platform/context.ts';
import { secretEquals } from '../platform/secrets.ts';
import { presentedToken } from './api-scope.ts';

// Not `import { createServer }`: see error-mapping.ts.
const { createServer } = process.getBuiltinModule('node:http');

type Observer = { observe(value: number): void };

/** Observes every request. Children are cached per method, route and status: no label hashing twice. */
export function observeRequests(app: FastifyInstance, ctx: Platform): void {
  const histogram = ctx.metrics.httpDuration;
  const byMethod = new Map<string, Map<string | undefined, Map<number, Observer>>>();
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    const status = reply.statusCode;
    let byRoute = byMethod.get(request.method);
    if (!byRoute) {
      byRoute = new Map();
      byMethod.set(request.method, byRoute);
    }
    let byStatus = byRoute.get(route);
    if (!byStatus) {
      byStatus = new Map();
      byRoute.set(route, byStatus);
    }
    let child = byStatus.get(status);
    if (!child) {
      // A path no route matched is one series, whatever was asked: no label per probe.
      child = histogram.labels(request.method, route ?? 'unmatched', String(status));
      byStatus.set(status, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });
}

const contentType = 'text/plain; version=0.0.4; charset=utf-8';

/** GET /metrics on the API port: for METRICS_TOKEN only; 403 while neither way is configured. */
export function metricsRoute(app: FastifyInstance, ctx: Platform): void {
  const { metricsToken, metricsPort } = ctx.config;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (metricsPort !== null && !metricsToken)
      return reply
        .code(404)
        .send({ errors: { response: '404 Not Found', reason: 'metrics are served on METRICS_PORT' } });
    if (!metricsToken)
      return reply.code(403).send({
        errors: { response: '403 Forbidden', reason: 'metrics are disabled: set METRICS_TOKEN or METRICS_PORT' },
      });
    const token = presentedToken(request.headers.authorization);
    if (!token || !secretEquals(token, metricsToken))
      return reply
        .code(401)
        .send({ errors: { response: '401 Unauthorized', reason: 'Authorization: Bearer <METRICS_TOKEN> required' } });
    return reply.type(contentType).send(await ctx.metrics.registry.metrics());
  });
}

/** The METRICS_PORT listener: GET /metrics only (with METRICS_TOKEN when that is set too). */
export async function startMetricsListener(ctx: Platform): Promise<{ url: string; close(): Promise<void> } | null> {
  const { metricsPort, metricsHost, metricsToken } = ctx.config;
  if (metricsPort === null) return null;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
      return;
    }
    if (metricsToken) {
      const token = presentedToken(request.headers.authorization);
      if (!token || !secretEquals(token, metricsToken)) {
        response
          .writeHead(401, { 'content-type': 'text/plain' })
          .end('Authorization: Bearer <METRICS_TOKEN> required\n');
        return;
      }
    }
    ctx.metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': contentType }).end(request.method === 'HEAD' ? '' : text),
      (error: unknown) => {
        ctx.log.error({ err: (error as Error).message }, 'metrics could not be collected');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n');
      },
    );
  });
  server.listen(metricsPort, metricsHost);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : metricsPort;
  const host = metricsHost.includes(':') ? `[${metricsHost}]` : metricsHost;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
