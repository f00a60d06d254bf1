// One API version (or the operator API) as an encapsulated Fastify scope: its own error
// shape, authentication by each route's declared access, rate limits, 405 for a known path
// called with the wrong method, and its own answer to an unknown path.

import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Actor, Platform } from '../platform/context.ts';
import { type DomainError, NotFound, Unauthorized, Forbidden } from '../platform/errors.ts';
import { emulatorToolsOff, emulatorToolsOn } from '../config.ts';
import { authenticateDigest, tokenDigestOf } from '../tokens/token.service.ts';
import { secretEquals } from '../platform/secrets.ts';
import type { ApiApp } from './api-app.ts';
import type { ApiFormat, Problem } from './error-mapping.ts';
import { toProblem } from './error-mapping.ts';
import type { RateLimiters, RateLimitName, RateLimitOutcome } from './rate-limit.ts';
import type { Access } from './fastify-augment.ts';
import { faultHook } from './fault-hook.ts';
import { logFailure } from './failure-log.ts';
import { documentRoute } from './openapi.ts';
import { type WrongMethod, type WrongMethodLookup, type WrongMethods, wrongMethods } from './wrong-method.ts';

export type RouteModule = (app: ApiApp, ctx: Platform) => void;

export interface ApiScopeOptions {
  format: ApiFormat;
  routes: RouteModule[];
  /** What an unknown path under this prefix answers: 501 (no such function) or 404. */
  unknownPath: 501 | 404;
  /** Content-type parsers of this scope beyond JSON (the legacy API adds form bodies). */
  setup?: (app: FastifyInstance) => Promise<void> | void;
  ctx: Platform;
  limiters: RateLimiters;
  /** The customer API this scope serves, for the operator's fault rules (none on /admin). */
  faults?: 'v1.3' | 'v1';
}

/** Reads the token from `Authorization: Bearer <token>` (or a bare key, as the legacy API sends). */
export function presentedToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^(?:Bearer\s+)?(\S+)\s*$/i.exec(header.trim());
  return match?.[1] ?? null;
}

/**
 * The login budget's key: client address and e-mail. It is taken before validation (so
 * invalid attempts count too), so the e-mail is hashed: an oversized one cannot bloat the store.
 */
function clientKeyFromBody(request: FastifyRequest): string {
  const body = request.body as { email?: unknown } | undefined;
  const email = typeof body?.email === 'string' ? body.email.trim().toLowerCase() : '';
  return `${request.ip}|${createHash('sha256').update(email).digest('base64url')}`;
}

/**
 * Why a request may not use the operator API (null when it may): no ADMIN_TOKEN set, or a token
 * other than it. Also asked for a path Fastify cannot decode, so a wrong token is a 401 whatever the path.
 */
export function operatorRefusal(
  adminToken: string | null | undefined,
  authorization: string | undefined,
): DomainError | null {
  const token = presentedToken(authorization);
  if (!adminToken) return new Forbidden('the operator API is disabled: set ADMIN_TOKEN');
  if (!token || !secretEquals(token, adminToken))
    return new Unauthorized('operator authentication required: Authorization: Bearer <ADMIN_TOKEN>');
  return null;
}

/** Shows the tightest budget a request counted against (a route may count against two). */
function setRateHeaders(reply: FastifyReply, outcome: RateLimitOutcome): void {
  const shown = reply.getHeader('RateLimit-Remaining');
  if (shown !== undefined && Number(shown) <= outcome.remaining) return;
  reply.header('RateLimit-Limit', outcome.limit);
  reply.header('RateLimit-Remaining', Math.max(0, outcome.remaining));
  reply.header('RateLimit-Reset', outcome.resetSeconds);
}

export function sendProblem(reply: FastifyReply, format: ApiFormat, problem: Problem): FastifyReply {
  if (problem.retryAfterSeconds !== undefined && problem.status !== 429)
    reply.header('Retry-After', problem.retryAfterSeconds);
  else if (problem.retryAfterSeconds !== undefined) {
    reply.header('Retry-After', problem.retryAfterSeconds);
    if (problem.rateLimit !== undefined) reply.header('RateLimit-Limit', problem.rateLimit);
    reply.header('RateLimit-Remaining', 0);
    reply.header('RateLimit-Reset', problem.retryAfterSeconds);
  }
  if (problem.allow) reply.header('Allow', problem.allow.join(', '));
  return reply.code(problem.status).type('application/json; charset=utf-8').send(format.error(problem));
}

export function apiScope(options: ApiScopeOptions) {
  const { ctx, format, limiters } = options;
  return async function scope(instance: FastifyInstance): Promise<void> {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>() as ApiApp;
    // Bodies are JSON (and what `setup` adds): a text/plain body is a wrong content type, not a string.
    instance.removeContentTypeParser('text/plain');
    await options.setup?.(instance);

    app.setErrorHandler((error, request, reply) => {
      // The client closed the connection (or it was cut by a timeout) before its body arrived:
      // nothing to answer and nothing wrong with the server (not a storage outage).
      if (request.raw.readableAborted) {
        request.log.info({ err: { message: (error as Error).message } }, 'request aborted by the client');
        return sendProblem(reply, format, { status: 400, reason: 'the request was not received in full' });
      }
      const problem = toProblem(error);
      logFailure(request, error, problem);
      return sendProblem(reply, format, problem);
    });

    // Known once every route of the scope is registered (below).
    let wrongMethod: WrongMethodLookup = () => null;
    app.setNotFoundHandler((request, reply) => {
      const served = wrongMethod(request.method, request.url);
      if (served) return sendProblem(reply, format, wrongMethodProblem(request.method, served));
      const problem: Problem =
        options.unknownPath === 501
          ? { status: 501, reason: `function does not exist: ${request.method} ${request.url.split('?')[0]}` }
          : { status: 404, reason: new NotFound('path').message };
      return sendProblem(reply, format, problem);
    });

    // Authentication and rate limits are attached to each route by its declared access when the
    // route is registered, so a request pays only for the hooks its route needs (reading the
    // route's options at request time costs more than the look-up itself).
    // The actor check and the token's budgets (the per-second one and the route's own) are asked
    // for in one tick, so with Redis they share one round trip (see tokens/actor-cache.ts).
    // Budgets are counted per token digest, known before the look-up. A callback hook that answers
    // at once when the actor is cached and the budgets are in memory: no promise per request.
    const authenticateAccount =
      (budgets: RateLimitName[]) => (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
        const token = presentedToken(request.headers.authorization);
        const digest = token ? tokenDigestOf(ctx, token) : null;
        if (!digest) return done(new Unauthorized());
        const found = authenticateDigest(ctx, digest);
        const counted = budgets.map((name) => countBudget(name, name === 'token' ? digest : `t${digest}`));
        const finish = (actor: Actor | null, outcomes: (RateLimitOutcome | Error)[]) => {
          // An unknown token is a 401 whatever its budgets say.
          if (!actor) return done(new Unauthorized());
          for (const outcome of outcomes) if (outcome instanceof Error) return done(outcome);
          request.actor = actor;
          for (const outcome of outcomes as RateLimitOutcome[]) setRateHeaders(reply, outcome);
          done();
        };
        if (!(found instanceof Promise) && !counted.some((outcome) => outcome instanceof Promise))
          return finish(found, counted as (RateLimitOutcome | Error)[]);
        Promise.all([found, Promise.all(counted)]).then(([actor, outcomes]) => finish(actor, outcomes), done);
      };
    /** One budget's count: its outcome, or the error that refused it (also when it arrives later). */
    const countBudget = (name: RateLimitName, key: string) => {
      try {
        const outcome = limiters.consume(name, key);
        return outcome instanceof Promise ? outcome.catch((error: Error) => error) : outcome;
      } catch (error) {
        return error as Error;
      }
    };
    const authenticateOperator = async (request: FastifyRequest) => {
      const refusal = operatorRefusal(ctx.config.adminToken, request.headers.authorization);
      if (refusal) throw refusal;
    };
    const authenticateEmulatorOperator = async (request: FastifyRequest) => {
      await authenticateOperator(request);
      if (!emulatorToolsOn(ctx.config)) throw new Forbidden(emulatorToolsOff);
    };
    // No body at all is an empty object, so a 400 lists each missing field rather than "body".
    const emptyBodyIsObject = async (request: FastifyRequest) => {
      if (request.body === undefined) request.body = {};
    };
    // Route-specific budgets run once the body is parsed, so login can count per e-mail.
    const rateLimited = (names: RateLimitName[]) => async (request: FastifyRequest, reply: FastifyReply) => {
      for (const name of names) {
        const key =
          name === 'login' ? clientKeyFromBody(request) : request.actor ? `t${request.actor.tokenId}` : request.ip;
        setRateHeaders(reply, await limiters.consume(name, key));
      }
    };
    const asList = <T>(hooks: T | T[] | undefined): T[] =>
      hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

    // Every route must say who may call it; collect methods per path for the 405 answers.
    const methodsByPath = new Map<string, Set<string>>();
    let fillingIn = false;
    app.decorateRequest('actor', null);
    app.addHook('onRoute', (route) => {
      if (fillingIn) return;
      const access: Access | undefined = route.config?.access;
      if (!access) throw new Error(`route ${String(route.method)} ${route.url} declares no access`);
      const path = route.url;
      const methods = methodsByPath.get(path) ?? new Set<string>();
      for (const method of [route.method].flat()) methods.add(method);
      methodsByPath.set(path, methods);

      const onRequest = asList(route.onRequest);
      let names: RateLimitName[] = route.config?.rateLimits ?? [];
      if (access === 'account') {
        // A token's budgets are counted with authentication; login's (per e-mail) needs the body.
        onRequest.unshift(authenticateAccount(['token', ...names.filter((name) => name !== 'login')]));
        names = names.filter((name) => name === 'login');
      } else if (access === 'operator') onRequest.unshift(authenticateOperator);
      else if (access === 'emulator') onRequest.unshift(authenticateEmulatorOperator);
      route.onRequest = onRequest as typeof route.onRequest;
      const preValidation = asList(route.preValidation);
      if ((route.schema as { body?: unknown } | undefined)?.body) preValidation.unshift(emptyBodyIsObject);
      if (names.length) preValidation.push(rateLimited(names));
      route.preValidation = preValidation as typeof route.preValidation;
      documentRoute(route, format);
    });

    // Rules left in storage (a state once loaded into an emulator) never touch a production deployment.
    if (options.faults && emulatorToolsOn(ctx.config))
      instance.addHook('preValidation', faultHook(ctx, format, options.faults, sendProblem));
    for (const register of options.routes) register(app, ctx);

    const wrong = wrongMethods(methodsByPath);
    wrongMethod = wrong.lookup;
    fillingIn = true;
    answerShadowed(instance, wrong.shadowed, format);
  };
}

/** A 405 route for each path whose missing methods a parametric route would otherwise take. */
export function answerShadowed(app: FastifyInstance, shadowed: WrongMethods['shadowed'], format: ApiFormat): void {
  for (const { path, methods, served } of shadowed)
    app.route({
      method: methods,
      // Relative to the scope's prefix, as the scope's own routes are.
      url: path.slice(app.prefix.length),
      config: { access: 'public' },
      schema: { hide: true } as object,
      handler: (request, reply) => sendProblem(reply, format, wrongMethodProblem(request.method, served)),
    });
}

/** The 405 answer: the methods the path does serve, in `Allow` and in the reason. */
export function wrongMethodProblem(method: string, served: WrongMethod): Problem {
  return { status: 405, reason: `wrong method ${method}: use ${served.named.join(' or ')}`, allow: served.allow };
}
