// The operator API's fault injection: rules that make matching customer requests fail or
// answer late, shared by every instance. See src/faults/fault.service.ts.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { documentedOperations } from '../../http/openapi-document.ts';
import {
  addFaultRule,
  type FaultRule as DomainFaultRule,
  injectableStatuses,
  listFaultRules,
  removeAllFaultRules,
  removeFaultRule,
} from '../../faults/fault.service.ts';
import { clearMachineFault, injectMachineFault, machineFaults } from '../../faults/machine-fault.ts';
import { isoSeconds } from '../../platform/clock.ts';
import { IdOrUuid, PathRef, responses, Timestamp } from '../v1_3/schemas.ts';
import { adminErrors, tags } from './format.ts';

const FaultRule = Type.Object({
  id: Type.Integer(),
  match: Type.Object({
    method: Type.Union([Type.String(), Type.Null()]),
    path: Type.Union([Type.String(), Type.Null()]),
    operation: Type.Union([Type.String(), Type.Null()]),
    account: Type.Union([Type.Integer(), Type.Null()], { description: 'account id' }),
    api: Type.Union([Type.String(), Type.Null()]),
  }),
  action: Type.Object({
    status: Type.Union([Type.Integer(), Type.Null()]),
    latency_ms: Type.Integer(),
    retry_after: Type.Union([Type.Integer(), Type.Null()]),
    compute_fail: Type.Boolean(),
  }),
  probability: Type.Number(),
  remaining: Type.Union([Type.Integer(), Type.Null()], { description: 'firings left; null: until removed' }),
  fired: Type.Integer({ description: 'how many requests it has answered so far, on every instance' }),
  note: Type.Union([Type.String(), Type.Null()]),
  created: Timestamp,
});

function faultRuleObject(rule: DomainFaultRule): Static<typeof FaultRule> {
  const { match, action } = rule;
  return {
    id: rule.id,
    match: {
      method: match.method,
      path: match.path,
      operation: match.operation,
      account: match.accountId,
      api: match.api,
    },
    action: {
      status: action.status,
      latency_ms: action.latencyMs,
      retry_after: action.retryAfter,
      compute_fail: action.computeFail,
    },
    probability: rule.probability,
    remaining: rule.remaining,
    fired: rule.fired,
    note: rule.note,
    created: isoSeconds(rule.createdAt),
  };
}

const FaultRuleInput = Type.Object({
  match: Type.Object(
    {
      method: Type.Optional(Type.String({ enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] })),
      path: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 200,
          description: 'a path (/v1.3/server/start), a route pattern (/v1.3/server/:id), or a prefix ending in *',
          examples: ['/v1.3/server/create'],
        }),
      ),
      operation: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'an operationId' })),
      account: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'id, uuid or e-mail' })),
      api: Type.Optional(Type.Union([Type.Literal('v1.3'), Type.Literal('v1')])),
    },
    { description: 'every field given must match; none given matches every customer request' },
  ),
  action: Type.Object({
    status: Type.Optional(Type.Integer({ enum: [...injectableStatuses] })),
    latency_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
    compute_fail: Type.Optional(
      Type.Boolean({
        description:
          'the request is answered as usual but its compute action fails: a new server settles stopped, another action leaves the server as it was (simulated driver)',
      }),
    ),
    retry_after: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 3600, description: 'seconds; 429 and 503 default to 1' }),
    ),
  }),
  times: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'the next N matching requests' })),
  probability: Type.Optional(
    Type.Number({ minimum: 0, maximum: 1, description: 'chance a matching request fires it' }),
  ),
  note: Type.Optional(Type.String({ maxLength: 500 })),
});

const MachineFaultBody = Type.Object({
  server: IdOrUuid,
  fault: Type.String({
    enum: [...machineFaults],
    description:
      "machine_lost: its machine and disk are gone (MachinePresent false, power stopped, a server.lost event and a mail; only the owner's restore, rebuild or reinstall brings it back); create_failed: the engine gave up making its disk, as a create out of attempts (MachinePresent false reason CreateFailed, power stopped, the transition under way ended with its server.power event carrying the error, engine_error set, unbilled; recovered as a lost machine is, or removed); engine_unreachable: its engine does not answer (EngineReachable false, power unknown) until the fault is removed",
  }),
});
const MachineFaultObject = Type.Object({
  server: Type.String({ description: "the server's uuid" }),
  fault: Type.String(),
});

export function faultRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'POST',
    url: '/faults/machines',
    config: { access: 'operator' },
    schema: {
      tags,
      operationId: 'adminAddMachineFault',
      summary: "Make a server's machine lost, its create failed or its engine unreachable",
      description:
        'Simulated driver only (409 with a real engine, which reports its own): the server shows what a real engine would report, with the same conditions, power, events and mail, so a client can test its handling.',
      body: MachineFaultBody,
      response: responses({ 201: MachineFaultObject }, [...adminErrors, 409]),
    },
    handler: async (request, reply) => {
      const { server, fault } = request.body;
      const uuid = await injectMachineFault(ctx, String(server), fault as (typeof machineFaults)[number]);
      reply.code(201);
      return { server: uuid, fault };
    },
  });

  app.route({
    method: 'DELETE',
    url: '/faults/machines/:server',
    config: { access: 'operator' },
    schema: {
      tags,
      operationId: 'adminRemoveMachineFault',
      summary: "Let a server's engine answer again",
      description:
        "Ends an engine_unreachable fault (EngineReachable true again). A lost machine stays lost, and a create given up stays so: as with a real engine, only its owner's restore, rebuild or reinstall brings it back. 409 with a real engine.",
      params: Type.Object({ server: PathRef }),
      response: responses({ 204: Type.Null() }, [...adminErrors, 409]),
    },
    handler: async (request, reply) => {
      await clearMachineFault(ctx, String(request.params.server));
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'POST',
    url: '/faults',
    config: { access: 'emulator' },
    schema: {
      tags,
      operationId: 'adminAddFaultRule',
      summary: 'Add a fault rule',
      description:
        'Matching customer requests (v1.3 and v1) answer the given status in that API’s error shape, and/or answer late. ' +
        'Injected answers carry the header Nubis-Fault with the rule id. Other instances apply a new rule within a second. ' +
        'A 4xx fires only on operations that document it: a rule that can only match operations that do not document its 4xx (one operation named, or an exact path, with or without a method) is refused (400, action.status).',
      body: FaultRuleInput,
      response: responses({ 201: FaultRule }, adminErrors),
    },
    handler: async (request, reply) => {
      reply.code(201);
      return faultRuleObject(await addFaultRule(ctx, request.body, await documentedOperations(app.openapi)));
    },
  });

  app.route({
    method: 'GET',
    url: '/faults',
    config: { access: 'emulator' },
    schema: {
      tags,
      operationId: 'adminListFaultRules',
      summary: 'Fault rules, with how many times each fired',
      description: 'Every fault rule in force, with how many times each has fired.',
      response: responses({ 200: Type.Object({ faults: Type.Array(FaultRule) }) }, adminErrors),
    },
    handler: async () => ({ faults: (await listFaultRules(ctx)).map(faultRuleObject) }),
  });

  app.route({
    method: 'DELETE',
    url: '/faults/:id',
    config: { access: 'emulator' },
    schema: {
      tags,
      operationId: 'adminRemoveFaultRule',
      summary: 'Remove one fault rule',
      description: 'Removes one fault rule by id; requests it matched behave normally again.',
      params: Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) }),
      response: responses({ 204: Type.Null() }, adminErrors),
    },
    handler: async (request, reply) => {
      await removeFaultRule(ctx, request.params.id);
      return reply.code(204).send(null);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/faults',
    config: { access: 'emulator' },
    schema: {
      tags,
      operationId: 'adminRemoveAllFaultRules',
      summary: 'Remove every fault rule',
      description: 'Removes every fault rule: the server behaves normally again.',
      response: responses({ 204: Type.Null() }, adminErrors),
    },
    handler: async (_request, reply) => {
      await removeAllFaultRules(ctx);
      return reply.code(204).send(null);
    },
  });
}
