// v1.3 snapshots: list (backups included), create, restore, remove.

import { Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { createSnapshot, listSnapshots, removeSnapshot, restoreImage } from '../../snapshots/snapshot.service.ts';
import { success } from './format.ts';
import { authErrors, IdOrUuid, responses, SuccessObject, Timestamp } from './schemas.ts';

const tags = ['v1.3 snapshots'];

const Snapshot = Type.Object({
  id: Type.Integer({ description: 'integer id (our addition: remove and restore accept it)' }),
  uuid: Type.String(),
  region_id: Type.Integer(),
  type: Type.String({ enum: ['snapshot', 'backup'] }),
  name: Type.String(),
  server_id: Type.String({ description: 'uuid of the server it was taken from' }),
  expires: Type.Union([Timestamp, Type.Null()], { description: 'when a backup is deleted; null for snapshots' }),
  status: Type.String({ enum: ['processing', 'completed'] }),
  size_gb: Type.Integer(),
  created: Timestamp,
});

export function snapshotRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/snapshot/list',
    config: { access: 'account' },
    schema: {
      tags,
      summary: 'Snapshots and backups of the account',
      response: responses({ 200: Type.Object({ snapshots: Type.Array(Snapshot) }) }, [401, 429]),
    },
    handler: async (request) => ({ snapshots: await listSnapshots(ctx, actorOf(request)) }),
  });

  app.route({
    method: 'POST',
    url: '/snapshot/create',
    config: { access: 'account' },
    schema: {
      tags,
      summary: 'Snapshot a server (processing until taken; the server shows snapshotting meanwhile)',
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), server_id: IdOrUuid }),
      response: responses(
        {
          201: Type.Object({
            snapshot_id: Type.String(),
            uuid: Type.String({ description: 'the same uuid, as the declared schema names it' }),
          }),
        },
        [...authErrors, 402, 404, 409],
      ),
    },
    handler: async (request, reply) => {
      const snapshot = await createSnapshot(ctx, actorOf(request), request.body);
      reply.code(201);
      return { snapshot_id: snapshot.uuid, uuid: snapshot.uuid };
    },
  });

  app.route({
    method: 'PATCH',
    url: '/snapshot/restore',
    config: { access: 'account' },
    schema: {
      tags,
      summary: 'Revert a server of the same region, whose disk fits, to the snapshot',
      body: Type.Object({ snapshot_id: IdOrUuid, server_id: IdOrUuid }),
      response: responses({ 202: SuccessObject }, [...authErrors, 404, 409]),
    },
    handler: async (request, reply) => {
      await restoreImage(ctx, actorOf(request), {
        imageRef: request.body.snapshot_id,
        serverRef: request.body.server_id,
        kind: 'snapshot',
      });
      reply.code(202);
      return success(202);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/snapshot/remove/:snapshot_id',
    config: { access: 'account' },
    schema: {
      tags,
      params: Type.Object({ snapshot_id: Type.String({ maxLength: 64 }) }),
      response: responses({ 204: Type.Null() }, [401, 403, 404, 409, 429]),
    },
    handler: async (request, reply) => {
      await removeSnapshot(ctx, actorOf(request), request.params.snapshot_id);
      return reply.code(204).send(null);
    },
  });
}
