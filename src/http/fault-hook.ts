// Applies the operator's fault rules to one API scope's requests: after authentication (so a
// rule can name an account), before validation (so any request can be made to fail). An
// injected answer carries `Nubis-Fault: <rule id>`, so a puzzled client developer can tell.

import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Platform } from '../platform/context.ts';
import { firedFault, noFaultRules } from '../faults/fault.service.ts';
import { statusLine, type ApiFormat } from './error-mapping.ts';
import type { Problem } from './error-mapping.ts';

/** How the scope answers a problem (its sendProblem), passed in so this module does not import the scope. */
type SendProblem = (reply: FastifyReply, format: ApiFormat, problem: Problem) => FastifyReply;

const statusesOfSchema = new WeakMap<object, ReadonlySet<number>>();

/** The statuses the request's route documents (its schema's responses), or undefined without a schema. */
function documentedStatuses(request: FastifyRequest): ReadonlySet<number> | undefined {
  const schema = request.routeOptions.schema as { response?: Record<string, unknown> } | undefined;
  if (!schema?.response) return undefined;
  let statuses = statusesOfSchema.get(schema);
  if (!statuses) {
    statuses = new Set(Object.keys(schema.response).map(Number));
    statusesOfSchema.set(schema, statuses);
  }
  return statuses;
}

export function faultHook(ctx: Platform, format: ApiFormat, api: 'v1.3' | 'v1', sendProblem: SendProblem) {
  // A callback hook: with no rule set (the usual case) it answers at once, without a promise.
  return function onPreValidation(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    if (noFaultRules(ctx)) return done();
    injectFault(request, reply).then((answered) => {
      if (!answered) done();
    }, done);
  };

  /** Applies the rule that fires, if any; true when it answered the request. */
  async function injectFault(request: FastifyRequest, reply: FastifyReply): Promise<boolean> {
    const fault = await firedFault(ctx, {
      api,
      method: request.method,
      path: request.url.split('?', 1)[0],
      route: request.routeOptions.url,
      operationId: (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId,
      accountId: request.actor?.accountId ?? null,
      documented: documentedStatuses(request),
    });
    if (!fault) return false;
    reply.header('Nubis-Fault', String(fault.ruleId));
    if (fault.latencyMs > 0) await sleep(fault.latencyMs);
    if (fault.computeFail && request.actor) {
      // A copy: the actor may be shared (cached) beyond this request.
      request.actor = { ...request.actor, computeFault: fault.ruleId };
      request.log.info({ faultRule: fault.ruleId }, 'compute failure injected');
    }
    if (fault.status === null) return false;
    request.log.info({ faultRule: fault.ruleId, status: fault.status }, 'fault injected');
    sendProblem(reply, format, {
      status: fault.status,
      reason: `${statusLine(fault.status)} (injected by fault rule ${fault.ruleId})`,
      ...(fault.status === 400
        ? { fields: [{ field: 'fault', reason: `injected by fault rule ${fault.ruleId}` }] }
        : {}),
      ...(fault.retryAfter !== null
        ? { retryAfterSeconds: fault.retryAfter, ...(fault.status === 429 ? { rateLimit: 1 } : {}) }
        : {}),
    });
    return true;
  }
}
