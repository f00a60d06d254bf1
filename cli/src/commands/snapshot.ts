// `nubis snapshot`: take, list, restore and remove snapshots, through the SDK.

import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import { type CommandKit, ref, type Row } from '../command-kit.ts';
import type { Column } from '../output.ts';

/** The columns of a snapshot or backup row (`nubis snapshot list`, `nubis backup list`). */
export const snapshotColumns: Column[] = [
  { header: 'ID', value: 'id' },
  { header: 'NAME', value: 'name' },
  { header: 'TYPE', value: 'type' },
  { header: 'STATUS', value: 'status' },
  { header: 'SERVER', value: 'server_id' },
  { header: 'SIZE_GB', value: 'size_gb' },
  { header: 'CREATED', value: 'created' },
];

export function addSnapshotCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, client, printRows, done, waitOption, settle } = kit;
  const snapshot = group(program, 'snapshot', 'snapshots');
  leaf(snapshot, 'list', 'list snapshots and backups').action(async (_options, command: Command) => {
    const data = await unwrap(client(command).GET('/v1.3/snapshot/list'));
    printRows(command, data, data.snapshots as Row[], snapshotColumns);
  });
  leaf(snapshot, 'create <server>', 'snapshot a server')
    .requiredOption('--name <name>', 'snapshot name')
    .action(async (id: string, options, command: Command) => {
      const data = await unwrap(
        client(command).POST('/v1.3/snapshot/create', { body: { server_id: ref(id), name: options.name } }),
      );
      done(command, data, `snapshot ${data.snapshot_id} of server ${id} is being taken`);
    });
  waitOption(
    leaf(snapshot, 'restore <snapshot>', 'restore a snapshot onto a server').requiredOption(
      '--server <id>',
      'the server to restore onto',
    ),
  ).action(async (id: string, options, command: Command) => {
    const api = client(command);
    const answer = await unwrap(
      api.PATCH('/v1.3/snapshot/restore', { body: { snapshot_id: ref(id), server_id: ref(options.server) } }),
    );
    const settled = await settle(command, api, options.server, ['running', 'stopped'], options);
    done(command, settled ?? answer, `snapshot ${id} restored onto server ${options.server}`);
  });
  leaf(snapshot, 'remove <snapshot>', 'remove a snapshot').action(async (id: string, _options, command: Command) => {
    await unwrap(
      client(command).DELETE('/v1.3/snapshot/remove/{snapshot_id}', { params: { path: { snapshot_id: id } } }),
    );
    done(command, { removed: true }, `snapshot ${id} removed`);
  });
}
