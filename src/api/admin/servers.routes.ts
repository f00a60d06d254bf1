// The operator API's servers: every account's servers in one list, one server, a forced stop
// and a removal. The rules live in src/servers/server-operator.service.ts.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import {
  forceStopServer,
  listAllServers,
  operatorRemoveServer,
  type OperatorServer as DomainOperatorServer,
  operatorServerInfo,
} from '../../servers/server-operator.service.ts';
import { isoSeconds } from '../../platform/clock.ts';
import { POWER_STATES } from '../../compute/power-state.ts';
import { MAX_ROW_ID } from '../../platform/ids.ts';
import { IdOrUuid, PathRef, responses, Timestamp } from '../v1_3/schemas.ts';
import { conditionObject, ServerCondition } from '../v1_3/server.routes.ts';
import { adminErrors, tags } from './format.ts';
import { recoverServer } from '../../hosts/server-recovery.service.ts';

export const OperatorServer = Type.Object(
  {
    id: Type.Integer(),
    uuid: Type.String(),
    account_id: Type.Integer(),
    account_email: Type.String(),
    name: Type.String(),
    hostname: Type.String(),
    power: Type.String({ enum: [...POWER_STATES], description: 'the settled power, or the transition under way' }),
    rescue: Type.Boolean(),
    region_id: Type.Integer(),
    region: Type.String({ description: "the region's city" }),
    image: Type.String(),
    plan: Type.String(),
    created: Timestamp,
    engine_error: Type.Union([Type.String(), Type.Null()], {
      description:
        'why the compute engine last failed this server, e.g. a provisioning that ran out of attempts (COMPUTE_DRIVER=lxd); null when it has not',
    }),
    lost: Type.Boolean({
      description:
        'the machine the engine made for it is gone, alone or with its host (condition MachinePresent false, InstanceMissing or HostLost); nothing is made again until its owner or the operator restores, rebuilds, reinstalls, recovers or removes it',
    }),
    host: Type.Union([Type.String(), Type.Null()], {
      description:
        'the host its machine runs on, as the engine last reported it (see GET /admin/hosts); null until it has',
    }),
    conditions: Type.Array(ServerCondition),
  },
  { $id: 'AdminServer', description: 'a server as the operator sees it, with its owner' },
);

function operatorServerObject(server: DomainOperatorServer): Static<typeof OperatorServer> {
  return {
    id: server.id,
    uuid: server.uuid,
    account_id: server.accountId,
    account_email: server.accountEmail,
    name: server.name,
    hostname: server.hostname,
    power: server.power,
    rescue: server.rescue,
    region_id: server.regionId,
    region: server.region,
    image: server.image,
    plan: server.plan,
    created: isoSeconds(server.createdAt),
    engine_error: server.engineError,
    lost: server.lost,
    host: server.host,
    conditions: server.conditions.map(conditionObject),
  };
}

const ServerRef = Type.Object({ server: PathRef });

export function operatorServerRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/servers',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminListServers',
      tags,
      summary: 'List the servers of every account',
      description:
        'Filters combine: `account` (id, uuid or e-mail), `power` (the shown power), `region` (id). Page with `after` (the last id seen) and `limit` (default 100, at most 1000).',
      querystring: Type.Object({
        account: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
        power: Type.Optional(Type.String({ enum: [...POWER_STATES], description: 'the shown power' })),
        // Ids as their columns hold them (32-bit on PostgreSQL).
        region: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_ROW_ID })),
        after: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ROW_ID })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
      }),
      response: responses(
        { 200: Type.Object({ servers: Type.Array(OperatorServer) }, { description: 'the servers, by id' }) },
        adminErrors,
      ),
    },
    handler: async (request) => ({ servers: (await listAllServers(ctx, request.query)).map(operatorServerObject) }),
  });

  app.route({
    method: 'GET',
    url: '/servers/:server',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminGetServer',
      tags,
      summary: 'Show any server',
      description: "Any account's server by id or uuid, with its owner (404 when none matches).",
      params: ServerRef,
      response: responses({ 200: OperatorServer }, adminErrors),
    },
    handler: async (request) => operatorServerObject(await operatorServerInfo(ctx, request.params.server)),
  });

  app.route({
    method: 'POST',
    url: '/servers/:server/stop',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminForceStopServer',
      tags,
      summary: 'Force a server off',
      description:
        "Pulls the plug: the machine is stopped and the server shows `stopped` at once, even while provisioning or in a transition. A server already stopped stays as it is. The owner's permissions do not apply.",
      params: ServerRef,
      response: responses({ 200: OperatorServer }, adminErrors),
    },
    handler: async (request) => operatorServerObject(await forceStopServer(ctx, request.params.server)),
  });

  app.route({
    method: 'POST',
    url: '/servers/:server/recover',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminRecoverServer',
      tags,
      summary: 'Recover a lost server from its backup or snapshot',
      description:
        "Remakes a lost server's machine (MachinePresent false) on another host from one of its own backups or snapshots: a new disk as that image holds it, at the same addresses, the host it was lost with avoided. The server shows `restoring` until the engine made it; the owner gets a server.recovered event and a mail, and billing resumes. 409 when the server is not lost, or the image is another server's, failed or still being copied.",
      params: ServerRef,
      body: Type.Object({ backup: IdOrUuid }),
      response: responses({ 202: OperatorServer }, [...adminErrors, 409]),
    },
    handler: async (request, reply) => {
      const server = await recoverServer(ctx, request.params.server, request.body.backup);
      reply.code(202);
      return operatorServerObject(server);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/servers/:server',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminRemoveServer',
      tags,
      summary: 'Remove any server',
      description:
        "As the owner's remove: billing stops, addresses go back to the pool, floating IPs and VPCs let go, backups go with it; snapshots stay.",
      params: ServerRef,
      response: responses({ 200: Type.Object({ removed: Type.Boolean() }) }, adminErrors),
    },
    handler: async (request) => {
      await operatorRemoveServer(ctx, request.params.server);
      return { removed: true };
    },
  });
}
