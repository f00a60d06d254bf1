// Legacy v1 snapshots and backups: snapshot list, create, remove and restore, and backup
// restore, over the same snapshot service as v1.3.

import { Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { createSnapshot, listSnapshots, removeSnapshot, restoreImage } from '../../snapshots/snapshot.service.ts';
import { envelope, withLegacyFields } from './format.ts';
import { authErrors, changeErrors, formBody, Id, responses, StatusEnvelope, tags } from './schemas.ts';
import { keyed, Keyed, LegacySnapshot, toLegacySnapshot } from './shapes.ts';
import { CreateSnapshotBody } from '../v1_3/snapshot.routes.ts';

const restoreErrors = [...changeErrors, 404, 409];

export function snapshotRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/snapshot/list',
    config: { access: 'account' },
    schema: {
      operationId: 'legacyListSnapshots',
      summary: 'List snapshots (legacy)',
      description:
        "The account's snapshots (backups are not listed here: /v1.3/snapshot/list shows them, type backup).",
      tags,
      response: responses({ 200: Keyed(LegacySnapshot) }, authErrors),
    },
    handler: async (request) => {
      const snapshots = (await listSnapshots(ctx, actorOf(request))).filter((s) => s.type === 'snapshot');
      return keyed(snapshots.map(toLegacySnapshot), (s) => s.ID);
    },
  });

  app.route({
    method: 'POST',
    url: '/snapshot/create',
    config: { access: 'account' },
    schema: {
      operationId: 'legacyCreateSnapshot',
      summary: 'Snapshot a server (legacy)',
      description: 'Snapshots a server (billed per GB until removed); the message is the new SNAPSHOTID.',
      tags,
      consumes: formBody,
      body: Type.Object({ SUBID: Id, label: CreateSnapshotBody.properties.name }),
      response: responses({ 200: StatusEnvelope }, [...changeErrors, 402, 404, 409]),
    },
    handler: async (request) => {
      const { SUBID, label } = request.body;
      const snapshot = await withLegacyFields({ name: 'label', server_id: 'SUBID' }, () =>
        createSnapshot(ctx, actorOf(request), { name: label, server_id: SUBID }),
      );
      return envelope(String(snapshot.id), 201);
    },
  });

  app.route({
    method: 'POST',
    url: '/snapshot/remove',
    config: { access: 'account' },
    schema: {
      operationId: 'legacyRemoveSnapshot',
      summary: 'Remove a snapshot (legacy)',
      description: 'Removes a snapshot; billing stops.',
      tags,
      consumes: formBody,
      body: Type.Object({ SNAPSHOTID: Id }),
      response: responses({ 200: StatusEnvelope }, restoreErrors),
    },
    handler: async (request) => {
      await removeSnapshot(ctx, actorOf(request), request.body.SNAPSHOTID);
      return envelope(`snapshot ${request.body.SNAPSHOTID} removed`, 204);
    },
  });

  app.route({
    method: 'POST',
    url: '/snapshot/restore',
    config: { access: 'account' },
    schema: {
      operationId: 'legacyRestoreSnapshot',
      summary: 'Restore a snapshot (legacy)',
      description: 'Reverts a server of the same location, whose disk fits, to the snapshot.',
      tags,
      consumes: formBody,
      body: Type.Object({ SUBID: Id, SNAPSHOTID: Id }),
      response: responses({ 200: StatusEnvelope }, restoreErrors),
    },
    handler: async (request) => {
      const { SUBID, SNAPSHOTID } = request.body;
      await withLegacyFields({ snapshot_id: 'SNAPSHOTID', server_id: 'SUBID' }, () =>
        restoreImage(ctx, actorOf(request), { imageRef: SNAPSHOTID, serverRef: SUBID, kind: 'snapshot' }),
      );
      return envelope(`server ${SUBID} is restoring snapshot ${SNAPSHOTID}`, 201);
    },
  });

  app.route({
    method: 'POST',
    url: '/backup/restore',
    config: { access: 'account' },
    schema: {
      operationId: 'legacyRestoreBackup',
      summary: 'Restore a backup (legacy)',
      description: 'Reverts the server to one of its own backups (their ids: /v1.3/snapshot/list, type backup).',
      tags,
      consumes: formBody,
      body: Type.Object({ SUBID: Id, BACKUPID: Id }),
      response: responses({ 200: StatusEnvelope }, restoreErrors),
    },
    handler: async (request) => {
      const { SUBID, BACKUPID } = request.body;
      await withLegacyFields({ backup_id: 'BACKUPID', server_id: 'SUBID' }, () =>
        restoreImage(ctx, actorOf(request), { imageRef: BACKUPID, serverRef: SUBID, kind: 'backup' }),
      );
      return envelope(`server ${SUBID} is restoring backup ${BACKUPID}`, 201);
    },
  });
}
