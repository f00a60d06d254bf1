// v1.3 snapshots: list (backups included), create, restore, remove.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import {
  createSnapshot,
  listSnapshots,
  removeSnapshot,
  restoreImage,
  type Snapshot as DomainSnapshot,
} from '../../snapshots/snapshot.service.ts';
import { isoOrNull, isoSeconds } from '../../platform/clock.ts';
import { accepted } from './format.ts';
import { authErrors, IdOrUuid, PathRef, responses, SuccessObject, Timestamp } from './schemas.ts';

const tags = ['v1.3 snapshots'];

export const Snapshot = Type.Object(
  {
    id: Type.Integer({ description: 'integer id (our addition: remove and restore accept it)' }),
    uuid: Type.String(),
    region_id: Type.Integer(),
    type: Type.String({ enum: ['snapshot', 'backup'] }),
    name: Type.String(),
    server_id: Type.String({ description: 'uuid of the server it was taken from' }),
    expires: Type.Union([Timestamp, Type.Null()], { description: 'when a backup is deleted; null for snapshots' }),
    status: Type.String({
      enum: ['processing', 'completed', 'failed'],
      description:
        'processing, completed, or failed (our addition: the engine gave up on the copy; the owner is told why by mail and a `snapshot.failed` or `backup.failed` event, it is no longer billed, and it cannot be restored)',
    }),
    size_gb: Type.Integer(),
    created: Timestamp,
  },
  { $id: 'Snapshot', description: 'a snapshot or automatic backup (spec: Snapshot object)' },
);

/** snapshot/create's body (the legacy create shares the name, as its label). */
export const CreateSnapshotBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  server_id: IdOrUuid,
});

function snapshotObject(snapshot: DomainSnapshot): Static<typeof Snapshot> {
  return {
    id: snapshot.id,
    uuid: snapshot.uuid,
    region_id: snapshot.regionId,
    type: snapshot.type,
    name: snapshot.name,
    server_id: snapshot.serverUuid,
    expires: isoOrNull(snapshot.expiresAt),
    status: snapshot.failure !== null ? 'failed' : snapshot.processing ? 'processing' : 'completed',
    size_gb: snapshot.sizeGb,
    created: isoSeconds(snapshot.createdAt),
  };
}

export function snapshotRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/snapshot/list',
    config: { access: 'account' },
    schema: {
      operationId: 'listSnapshots',
      summary: 'List snapshots and backups',
      description: 'Every snapshot and automatic backup of the account (`type` tells which).',
      tags,
      response: responses({ 200: Type.Object({ snapshots: Type.Array(Snapshot) }) }, [401, 429]),
    },
    handler: async (request) => ({ snapshots: (await listSnapshots(ctx, actorOf(request))).map(snapshotObject) }),
  });

  app.route({
    method: 'POST',
    url: '/snapshot/create',
    config: { access: 'account' },
    schema: {
      operationId: 'createSnapshot',
      summary: 'Snapshot a server',
      description:
        "Takes a snapshot of a server's disk, billed per GB until removed. It is `processing` until taken, and the server shows `snapshotting` meanwhile.",
      tags,
      body: CreateSnapshotBody,
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
      operationId: 'restoreSnapshot',
      summary: 'Restore a snapshot onto a server',
      description:
        'Reverts a server of the same region, whose disk is large enough, to the snapshot; the server shows `restoring` until done.',
      tags,
      body: Type.Object({ snapshot_id: IdOrUuid, server_id: IdOrUuid }),
      response: responses({ 202: SuccessObject }, [...authErrors, 404, 409]),
    },
    handler: async (request, reply) => {
      await restoreImage(ctx, actorOf(request), {
        imageRef: request.body.snapshot_id,
        serverRef: request.body.server_id,
        kind: 'snapshot',
      });
      return accepted(reply);
    },
  });

  app.route({
    method: 'DELETE',
    url: '/snapshot/remove/:snapshot_id',
    config: { access: 'account' },
    schema: {
      operationId: 'removeSnapshot',
      summary: 'Remove a snapshot',
      description: 'Removes a snapshot or backup for good; its billing stops. 409 while it is still being taken.',
      tags,
      params: Type.Object({ snapshot_id: PathRef }),
      response: responses({ 204: Type.Null() }, [401, 403, 404, 409, 429]),
    },
    handler: async (request, reply) => {
      await removeSnapshot(ctx, actorOf(request), request.params.snapshot_id);
      return reply.code(204).send(null);
    },
  });
}
