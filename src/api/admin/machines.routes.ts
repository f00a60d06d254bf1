// The operator API's engine machines that no server owns (src/compute/orphan-machines.ts): the
// list as of the last reconciliation, and the explicit removal of one.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import {
  listOrphanMachines,
  type OrphanMachine as DomainOrphanMachine,
  removeOrphanMachine,
} from '../../compute/orphan-machines.ts';
import { isoSeconds } from '../../platform/clock.ts';
import { responses, Timestamp } from '../v1_3/schemas.ts';
import { adminErrors, tags } from './format.ts';

export const OrphanMachine = Type.Object(
  {
    uuid: Type.String({ description: 'the server uuid in the machine’s name; no server of this database has it' }),
    instance: Type.Union([Type.String(), Type.Null()], { description: 'the engine’s name for it (nubis-<uuid>)' }),
    power: Type.String({ enum: ['running', 'stopped'] }),
    first_seen: Timestamp,
    removing: Type.Boolean({ description: 'the operator asked for its removal; it goes at the next engine job' }),
  },
  { $id: 'AdminOrphanMachine', description: 'an engine machine under Nubis’s names that no server owns' },
);

function orphanObject(orphan: DomainOrphanMachine): Static<typeof OrphanMachine> {
  return {
    uuid: orphan.uuid,
    instance: orphan.instance,
    power: orphan.power,
    first_seen: isoSeconds(orphan.firstSeen),
    removing: orphan.removing,
  };
}

const Uuid = Type.Object({ uuid: Type.String({ pattern: '^[0-9a-f-]{36}$', maxLength: 36 }) });

export function operatorMachineRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/machines/orphans',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminListOrphanMachines',
      tags,
      summary: 'Engine machines no server owns',
      description:
        'Machines the compute engine runs under Nubis’s names whose server this database does not have (after a restore of an older backup, say), as of the last reconciliation (COMPUTE_RECONCILE_SECONDS). They are never removed on their own: check the backup, then remove each one. Always empty with the simulated driver.',
      response: responses({ 200: Type.Object({ orphans: Type.Array(OrphanMachine) }) }, adminErrors),
    },
    handler: async () => ({ orphans: listOrphanMachines(ctx).map(orphanObject) }),
  });

  app.route({
    method: 'DELETE',
    url: '/machines/orphans/:uuid',
    config: { access: 'operator' },
    schema: {
      operationId: 'adminRemoveOrphanMachine',
      tags,
      summary: 'Remove an engine machine no server owns',
      description:
        'Queues the removal of the machine, its rescue system and its engine backups (202). 404 unless the last reconciliation reported it as orphaned; 409 when a server holds that uuid by now.',
      params: Uuid,
      response: responses({ 202: OrphanMachine }, [...adminErrors, 409]),
    },
    handler: async (request, reply) => {
      reply.code(202);
      return orphanObject(await removeOrphanMachine(ctx, request.params.uuid));
    },
  });
}
