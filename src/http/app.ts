// Builds the HTTP application: logging with request ids, body parsing, validation, the
// OpenAPI document, health endpoints, and one scope per API (v1.3, legacy v1, operator).

import { BlockList, isIP } from 'node:net';
import type { TrustProxy } from '../config.ts';
import { lazySerializerFactory, lazyValidatorFactory } from './lazy-compilers.ts';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  type FastifyReply,
} from 'fastify';
import type { Platform } from '../platform/context.ts';
import type { Storage } from '../db/connect.ts';
import {
  answerShadowed,
  apiScope,
  operatorRefusal,
  type RouteModule,
  sendProblem,
  wrongMethodProblem,
} from './api-scope.ts';
import { toProblem } from './error-mapping.ts';
import { wrongMethods } from './wrong-method.ts';
import { logFailure } from './failure-log.ts';
import { ajvFormats } from './formats.ts';
import { linearPatterns, linearRegExpEngine } from './linear-patterns.ts';
import { markComponents, polishDocument } from './openapi.ts';
import type { RateLimiters } from './rate-limit.ts';
import type { ApiFormat } from './error-mapping.ts';
import {
  applyConnectionLimits,
  clientErrorHandler,
  connectionsCheckingInterval,
  createLifecycle,
  type Lifecycle,
  trackConnections,
} from './connections.ts';
import { registerJournal } from './journal-hook.ts';
import { nestedDeeperThan, tooDeep } from './json-depth.ts';
import { lingerBeforeClosing } from './lingering-close.ts';
import { shareConnections } from './connection-share.ts';
import { metricsRoute, observeRequests } from './metrics.ts';
import { consoleStatic } from './console-static.ts';
import { docsPages } from './docs-pages.ts';
import { openapiDocument } from './openapi-document.ts';

/**
 * The APIs the app serves, each its error format and routes (src/api/served-apis.ts assembles
 * them): the machinery below takes them as given and never reaches up into src/api.
 */
export interface ServedApis {
  v13: { format: ApiFormat; routes: RouteModule[] };
  v1: { format: ApiFormat; routes: RouteModule[]; setup: (app: FastifyInstance) => Promise<void> | void };
  admin: { format: ApiFormat; routes: () => RouteModule[] };
  /** Payment processors' routes: Stripe's webhook and the simulated processor's checkout page. */
  processors: (ctx: Platform) => (app: FastifyInstance) => Promise<void>;
  /** The machine consoles' WebSockets (upgrades never reach Fastify's routes). */
  consoleSockets: (app: FastifyInstance, ctx: Platform) => void;
}

export interface AppDeps {
  ctx: Platform;
  apis: ServedApis;
  storage: Storage;
  limiters: RateLimiters;
  /** The package version, shown in the OpenAPI document. */
  version: string;
  /** The process's structured logger (pino), shared with the services; Fastify's own when absent. */
  logger?: FastifyBaseLogger;
  /** Set by the shutdown: /readyz and late requests answer 503; `connections` is set here, for the drain. */
  lifecycle?: Lifecycle;
}

/** TRUST_PROXY as the predicate Fastify asks about each hop of X-Forwarded-For. */
export function trustProxyFunction(trust: TrustProxy): (address: string, hop: number) => boolean {
  if (trust === false) return () => false;
  const proxies = new BlockList();
  for (const entry of trust) {
    const [address, bits] = entry.split('/') as [string, string | undefined];
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) proxies.addAddress(address, type);
    else proxies.addSubnet(address, Number(bits), type);
  }
  return (address) => proxies.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Headers every answer carries: no MIME sniffing; not stored by caches unless the route chose a
 * Cache-Control (API answers carry tokens, passwords and root passwords); not framed by other
 * origins (the /docs page, and any page served later).
 */
function securityHeaders(reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff');
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  if (!reply.hasHeader('x-frame-options')) reply.header('x-frame-options', 'SAMEORIGIN');
  const policy = reply.getHeader('content-security-policy');
  if (policy === undefined) reply.header('content-security-policy', "frame-ancestors 'self'");
  else if (!/frame-ancestors/.test(String(policy)))
    reply.header('content-security-policy', `${String(policy)}; frame-ancestors 'self'`);
}

/**
 * One line per request at info, when it is answered (method, path, status, milliseconds); the
 * arrival only at debug. A terminal at the default level stays readable.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ method: request.method }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    // The path without its query: a legacy client may put its key there.
    const query = request.url.indexOf('?');
    const path = query === -1 ? request.url : request.url.slice(0, query);
    const line = { method: request.method, path, status: reply.statusCode, ms: Math.round(reply.elapsedTime) };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { ctx, storage, limiters, apis } = deps;
  const { v13, v1, admin } = apis;
  const lifecycle = deps.lifecycle ?? createLifecycle();
  const app = Fastify({
    trustProxy: trustProxyFunction(ctx.config.trustProxy),
    schemaController: {
      compilersFactory: { buildValidator: lazyValidatorFactory(), buildSerializer: lazySerializerFactory() },
    },
    ...(deps.logger
      ? { loggerInstance: deps.logger }
      : { logger: ctx.config.logLevel === 'silent' ? false : { level: ctx.config.logLevel } }),
    genReqId: (request) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : ctx.random.uuid();
    },
    bodyLimit: 256 * 1024,
    // One log line per request, not Fastify's two.
    logController: new OneLinePerRequest(),
    // The drain (connections.ts) answers late requests itself, in the API's shape.
    return503OnClosing: false,
    forceCloseConnections: false,
    keepAliveTimeout: ctx.config.keepAliveTimeoutMs,
    requestTimeout: Math.max(ctx.config.requestTimeoutMs, ctx.config.headersTimeoutMs),
    http: { connectionsCheckingInterval: connectionsCheckingInterval(ctx.config) },
    clientErrorHandler,
    ajv: {
      customOptions: {
        allErrors: true,
        // Conversions are input-domain.ts's (a boolean is never a number, null never 0).
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: true,
        strict: false,
        verbose: true,
        code: { regExp: linearRegExpEngine },
      },
      plugins: [ajvFormats, linearPatterns],
    },
    // A URL Fastify cannot even decode (`/v1.3/x/%zz`) is bad input: a 400 in the API's own shape.
    // On the operator API, authentication answers first (401) whatever the path holds.
    frameworkErrors: (error, request, reply) => {
      if (/^\/admin(\/|\?|$)/.test(request.url)) {
        const refusal = operatorRefusal(ctx.config.adminToken, request.headers.authorization);
        if (refusal) return sendProblem(reply, admin.format, toProblem(refusal));
      }
      const format = request.url.startsWith('/v1/') ? v1.format : v13.format;
      return sendProblem(reply, format, {
        status: 400,
        reason: error.message,
        fields: [{ field: 'path', reason: error.message }],
      });
    },
  });

  // The routes outside the API scopes (health, OpenAPI, /docs, the console; a route takes the
  // handler set before it): Fastify's own would send a 5xx's message to the client; this one
  // logs it and answers `internal error`.
  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error);
    logFailure(request, error, problem);
    return sendProblem(reply, v13.format, problem);
  });

  // Paths outside the API scopes (health, OpenAPI, /docs) and their methods, for the 405 answers;
  // each API scope answers its own.
  const rootMethods = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    if (/^\/(v1\.3|v1|admin)(\/|$)/.test(route.url)) return;
    const methods = rootMethods.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    rootMethods.set(route.url, methods);
  });

  observeRequests(app, ctx);
  applyConnectionLimits(app.server, ctx.config);
  lifecycle.connections = trackConnections(app.server, app.log);
  lingerBeforeClosing(app.server, app.log);
  const trusted = trustProxyFunction(ctx.config.trustProxy);
  shareConnections(app.server, {
    maxConnections: ctx.config.maxConnections,
    maxConnectionsPerAddress: ctx.config.maxConnectionsPerAddress,
    firstByteTimeoutMs: ctx.config.firstByteTimeoutMs,
    isTrustedProxy: (address) => trusted(address, 0),
    log: app.log,
  });
  // The machine consoles' WebSockets (upgrades never reach Fastify's routes).
  apis.consoleSockets(app, ctx);

  // Shutting down: whatever still arrives is told to retry elsewhere, and its connection closes.
  // Callback hooks here and below: every request runs them, and an async hook costs a promise and
  // a microtask more each time.
  app.addHook('onRequest', (request, reply, done) => {
    if (!lifecycle.draining || request.url === '/readyz') return done();
    reply.header('connection', 'close').header('retry-after', 1);
    const format = request.url.startsWith('/v1/') ? v1.format : v13.format;
    sendProblem(reply, format, { status: 503, reason: 'the server is shutting down: retry' });
  });

  // The virtual clock is shared through storage: every request first reads its offset, so the
  // request after a clock advance on any instance sees the new time (the system clock skips this).
  if (ctx.clock.mode === 'virtual')
    app.addHook('onRequest', async () => {
      // Storage down: keep the last offset; the request's own storage call answers 503.
      await ctx.clock.refresh().catch(() => {});
    });

  app.addHook('onSend', (request, reply, payload, done) => {
    securityHeaders(reply);
    if (lifecycle.draining) reply.header('connection', 'close');
    reply.header('x-request-id', request.id);
    // Server time of the request, so clients and the benchmark can tell it from network time.
    reply.header('server-timing', `app;dur=${reply.elapsedTime.toFixed(2)}`);
    done(null, payload);
  });

  // Be liberal: an empty body sent with Content-Type: application/json is no body, not an error.
  const defaultJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    if (nestedDeeperThan(body as string, ctx.config.maxJsonDepth)) return done(tooDeep(ctx.config.maxJsonDepth));
    return defaultJson(request, body as string, done);
  });

  registerJournal(app, ctx);

  // Built on its first request (openapi-document.ts); the routes are recorded from here on.
  const openapi = openapiDocument(app, {
    transform: ({ schema, url }) => ({ schema: markComponents(schema) as typeof schema, url }),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Nubis',
        version: deps.version,
        description:
          'Cloud hosting management API: v1.3 (JSON), legacy v1 (form-encoded) and the operator API. ' +
          'Every operation has a stable `operationId` (the typed SDK `@nubis/sdk` is generated from this document).',
      },
      servers: [
        { url: '/', description: 'The Nubis server this document was fetched from' },
        {
          url: '{origin}',
          description:
            'Any Nubis server: the scheme, host and port it listens on (operations carry /v1.3, /v1, /admin)',
          variables: { origin: { default: 'http://localhost:8080', description: 'where Nubis listens' } },
        },
      ],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'an account token (register, login or token_create)' },
          operator: { type: 'http', scheme: 'bearer', description: 'the ADMIN_TOKEN of the server' },
        },
      },
      tags: [
        { name: 'v1.3 account', description: 'Register, activate, log in, reset a password; the Account object' },
        { name: 'v1.3 tokens', description: "The account's API tokens" },
        { name: 'v1.3 servers', description: 'Deploy, inspect, power and change servers' },
        { name: 'v1.3 snapshots', description: 'Snapshots of a server disk (billed per GB)' },
        { name: 'v1.3 backups', description: 'Automatic daily backups of a server' },
        { name: 'v1.3 floating IPs', description: 'Addresses kept apart from servers, attachable in their region' },
        { name: 'v1.3 VPCs', description: 'Private networks in a region' },
        { name: 'v1.3 SSH keys', description: 'Public keys installed on new servers' },
        { name: 'v1.3 reverse DNS and options', description: 'Reverse DNS names and per-server options' },
        { name: 'v1.3 billing', description: 'Transactions, invoice items and invoice sums' },
        { name: 'v1.3 listings', description: 'Regions, images and plans of the catalog (public)' },
        { name: 'v1 legacy', description: 'The legacy form-encoded API, over the same resources' },
        {
          name: 'operator',
          description: 'The operator API under /admin (not in the spec): enabled only when ADMIN_TOKEN is set',
        },
        { name: 'health', description: 'Liveness and readiness' },
      ],
      security: [{ bearer: [] }],
    },
    transformObject: (document) =>
      polishDocument((document as { openapiObject: Record<string, unknown> }).openapiObject),
  });
  app.decorate('openapi', openapi);
  docsPages(app, openapi);

  app.get('/openapi.json', { schema: { hide: true } }, () => openapi.json());
  metricsRoute(app, ctx);
  const Health = { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] } as const;
  const WrongMethod = {
    type: 'object',
    additionalProperties: true,
    description: 'only GET and HEAD are served',
  } as const;
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'getHealth',
        tags: ['health'],
        summary: 'Check that the process is up',
        description: 'Liveness: answers 200 while the process runs, whatever the state of storage.',
        security: [],
        response: { 200: Health, 405: WrongMethod },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['health'],
        summary: 'Check that the server can serve requests',
        description: 'Readiness: 200 when storage answers within 2 seconds, 503 otherwise.',
        security: [],
        response: {
          200: { ...Health, description: 'ready' },
          405: WrongMethod,
          503: { ...Health, description: 'not ready' },
        },
      },
    },
    async (_request, reply) => {
      if (lifecycle.stopping || lifecycle.draining)
        return reply.code(503).header('connection', 'close').header('retry-after', 1).send({ status: 'shutting down' });
      const ready = await Promise.race([
        storage.ping().catch(() => false),
        new Promise<boolean>((resolve) => setTimeout(resolve, 2_000, false)),
      ]);
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'storage unavailable' });
    },
  );

  await app.register(
    apiScope({ ctx, limiters, format: v13.format, routes: v13.routes, unknownPath: 501, faults: 'v1.3' }),
    {
      prefix: '/v1.3',
    },
  );
  await app.register(
    apiScope({ ctx, limiters, format: v1.format, routes: v1.routes, unknownPath: 404, setup: v1.setup, faults: 'v1' }),
    { prefix: '/v1' },
  );
  await app.register(apiScope({ ctx, limiters, format: admin.format, routes: admin.routes(), unknownPath: 404 }), {
    prefix: '/admin',
  });

  // Payment processors: Stripe's webhook and the simulated processor's checkout page.
  await app.register(apis.processors(ctx));

  // The web console at / (index.html and /assets/* only; every other path stays the APIs').
  await app.register(consoleStatic());

  // A plugin's `/` route serves both `/docs` and `/docs/` but announces only one of them.
  for (const [path, methods] of rootMethods) {
    const twin = rootMethods.get(path.endsWith('/') ? path.slice(0, -1) : `${path}/`);
    if (twin) for (const method of twin) methods.add(method);
  }
  const wrong = wrongMethods(rootMethods);
  answerShadowed(app, wrong.shadowed, v13.format);
  const wrongMethod = wrong.lookup;

  app.setNotFoundHandler((request, reply) => {
    const served = wrongMethod(request.method, request.url);
    if (served) return sendProblem(reply, v13.format, wrongMethodProblem(request.method, served));
    return reply
      .code(404)
      .send({ errors: { response: '404 Not Found', reason: `no such path: ${request.url.split('?')[0]}` } });
  });
  return app;
}
