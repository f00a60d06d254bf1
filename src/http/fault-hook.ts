// Applies the operator's fault rules to one API scope's requests: after authentication (so a
// rule can name an account), before validation (so any request can be made to fail). An
// injected answer carries `Nubis-Fault: <rule id>`, so a puzzled client developer can tell.

import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Platform } from '../platform/context.ts';
import { firedFault } from '../faults/fault.service.ts';
import { statusLine, type ApiFormat } from './error-mapping.ts';
import type { Problem } from './error-mapping.ts';

/** How the scope answers a problem (its sendProblem), passed in so this module does not import the scope. */
type SendProblem = (reply: FastifyReply, format: ApiFormat, problem: Problem) => FastifyReply;

export function faultHook(ctx: Platform, format: ApiFormat, api: 'v1.3' | 'v1', sendProblem: SendProblem) {
  return async function injectFault(request: FastifyRequest, reply: FastifyReply) {
    const fault = await firedFault(ctx, {
      api,
      method: request.method,
      path: request.url.split('?', 1)[0],
      route: request.routeOptions.url,
      operationId: (request.routeOptions.schema as { operationId?: string } | undefined)?.operationId,
      accountId: request.actor?.accountId ?? null,
    });
    if (!fault) return;
    reply.header('Nubis-Fault', String(fault.ruleId));
    if (fault.latencyMs > 0) await sleep(fault.latencyMs);
    if (fault.computeFail && request.actor) {
      // A copy: the actor may be shared (cached) beyond this request.
      request.actor = { ...request.actor, computeFault: fault.ruleId };
      request.log.info({ faultRule: fault.ruleId }, 'compute failure injected');
    }
    if (fault.status === null) return;
    request.log.info({ faultRule: fault.ruleId, status: fault.status }, 'fault injected');
    return sendProblem(reply, format, {
      status: fault.status,
      reason: `${statusLine(fault.status)} (injected by fault rule ${fault.ruleId})`,
      ...(fault.status === 400
        ? { fields: [{ field: 'fault', reason: `injected by fault rule ${fault.ruleId}` }] }
        : {}),
      ...(fault.retryAfter !== null
        ? { retryAfterSeconds: fault.retryAfter, ...(fault.status === 429 ? { rateLimit: 1 } : {}) }
        : {}),
    });
  };
}
