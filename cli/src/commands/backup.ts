// `nubis backup`: automatic backups of a server, through the SDK.

import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import { type CommandKit, ref, type Row } from '../command-kit.ts';
import { snapshotColumns } from './snapshot.ts';

export function addBackupCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, client, printRows, done, waitOption, settle } = kit;
  const backup = group(program, 'backup', 'automatic backups');
  leaf(backup, 'list', 'list backups').action(async (_options, command: Command) => {
    const data = await unwrap(client(command).GET('/v1.3/snapshot/list'));
    const backups = (data.snapshots as Row[]).filter((entry) => entry.type === 'backup');
    printRows(command, { backups }, backups, snapshotColumns);
  });
  for (const [name, description] of [
    ['enable', 'turn automatic backups on'],
    ['disable', 'turn automatic backups off'],
  ] as const)
    leaf(backup, `${name} <server>`, description).action(async (id: string, _options, command: Command) => {
      const api = client(command);
      const body = { server_id: ref(id) };
      const answer =
        name === 'enable'
          ? await unwrap(api.PATCH('/v1.3/backup/enable', { body }))
          : await unwrap(api.PATCH('/v1.3/backup/disable', { body }));
      done(command, answer, `backups ${name}d for server ${id}`);
    });
  waitOption(
    leaf(backup, 'restore <backup>', 'restore a backup onto its server').requiredOption('--server <id>', 'the server'),
  ).action(async (id: string, options, command: Command) => {
    const api = client(command);
    const answer = await unwrap(
      api.PATCH('/v1.3/backup/restore', { body: { backup_id: ref(id), server_id: ref(options.server) } }),
    );
    const settled = await settle(command, api, options.server, ['running', 'stopped'], options);
    done(command, settled ?? answer, `backup ${id} restored onto server ${options.server}`);
  });
}
