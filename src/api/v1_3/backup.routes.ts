// v1.3 backups: enable and disable a server's automatic daily backups, restore one.

import { Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { setBackups } from '../../snapshots/backup.service.ts';
import { restoreImage } from '../../snapshots/snapshot.service.ts';
import { accepted } from './format.ts';
import { authErrors, IdOrUuid, responses, SuccessObject } from './schemas.ts';

const tags = ['v1.3 backups'];
const errors = [...authErrors, 404, 409];

export function backupRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'PATCH',
    url: '/backup/restore',
    config: { access: 'account' },
    schema: {
      operationId: 'restoreBackup',
      summary: 'Restore a backup',
      description: 'Reverts the server to one of its own automatic backups (ids from `/snapshot/list`, type backup).',
      tags,
      body: Type.Object({ backup_id: IdOrUuid, server_id: IdOrUuid }),
      response: responses({ 202: SuccessObject }, errors),
    },
    handler: async (request, reply) => {
      await restoreImage(ctx, actorOf(request), {
        imageRef: request.body.backup_id,
        serverRef: request.body.server_id,
        kind: 'backup',
      });
      return accepted(reply);
    },
  });

  for (const [command, enable] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.route({
      method: 'PATCH',
      url: `/backup/${command}`,
      config: { access: 'account' },
      schema: {
        ...(enable
          ? {
              operationId: 'enableBackups',
              summary: 'Enable automatic backups',
              description:
                'Starts daily backups, kept for BACKUP_RETENTION_DAYS and billed as a share of the server price. 409 when they are already on.',
            }
          : {
              operationId: 'disableBackups',
              summary: 'Disable automatic backups',
              description:
                'Stops taking backups; those already taken stay until they expire. 409 when they are already off.',
            }),
        tags,
        body: Type.Object({ server_id: IdOrUuid }),
        response: responses({ 202: SuccessObject }, errors),
      },
      handler: async (request, reply) => {
        await setBackups(ctx, actorOf(request), request.body.server_id, enable);
        return accepted(reply);
      },
    });
  }
}
