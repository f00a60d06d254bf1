// `nubis admin hosts list|drain|restore` and `nubis admin servers recover`: the compute hosts as
// the engine reports them, a host drained for maintenance and restored, and a lost server remade
// on another host from its backup or snapshot, through the SDK.

import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import type { CommandKit, Row } from '../command-kit.ts';
import { type Column, table } from '../output.ts';

const gib = 1024 ** 3;
const inGib = (bytes: unknown) => (typeof bytes === 'number' ? `${Math.round((bytes / gib) * 10) / 10}` : '-');

const hostColumns: Column[] = [
  { header: 'NAME', value: 'name' },
  { header: 'STATUS', value: 'status' },
  { header: 'SERVERS', value: 'servers' },
  {
    header: 'VCPUS',
    value: (row) => {
      const { used, capacity } = row as { used: { vcpus: number }; capacity: { vcpus: number } };
      return `${used.vcpus}/${capacity.vcpus}`;
    },
  },
  {
    header: 'MEMORY GB',
    value: (row) => {
      const { used, capacity } = row as { used: { memory_bytes: number }; capacity: { memory_bytes: number } };
      return `${inGib(used.memory_bytes)}/${inGib(capacity.memory_bytes)}`;
    },
  },
  {
    header: 'DISK GB',
    value: (row) => {
      const { used, capacity } = row as { used: { disk_bytes: number }; capacity: { disk_bytes: number | null } };
      return `${inGib(used.disk_bytes)}/${inGib(capacity.disk_bytes)}`;
    },
  },
  {
    // A drain or restore given up on is what the operator must see first.
    header: 'MESSAGE',
    value: (row) => {
      const { message, failure } = row as { message: string; failure?: string | null };
      return failure ? `${failure} (${message})` : message;
    },
  },
];

export function addHostCommands(admin: Command, servers: Command, kit: CommandKit, serverColumns: Column[]): void {
  const { group, leaf, adminClient, print, printRows } = kit;
  const hosts = group(admin, 'hosts', 'compute hosts (engine cluster members): capacity used, drain, restore');
  leaf(hosts, 'list', 'every host with its status, servers and the capacity they use').action(
    async (_options, command: Command) => {
      const data = await unwrap(adminClient(command).GET('/admin/hosts'));
      printRows(command, data, data.hosts as Row[], hostColumns);
    },
  );
  leaf(hosts, 'drain <host>', 'move every server off a host for maintenance (each gets a server.moved event)').action(
    async (name: string, _options, command: Command) => {
      const data = await unwrap(adminClient(command).POST('/admin/hosts/{name}/drain', { params: { path: { name } } }));
      print(command, data, () => table([data as Row], hostColumns));
    },
  );
  leaf(hosts, 'restore <host>', 'let a drained host take servers again (those moved off come back)').action(
    async (name: string, _options, command: Command) => {
      const data = await unwrap(
        adminClient(command).POST('/admin/hosts/{name}/restore', { params: { path: { name } } }),
      );
      print(command, data, () => table([data as Row], hostColumns));
    },
  );
  leaf(servers, 'recover <server>', 'remake a lost server on another host from its backup or snapshot')
    .requiredOption('--backup <id>', 'the backup or snapshot (id or uuid) taken from this server')
    .action(async (id: string, options, command: Command) => {
      const backup = /^\d+$/.test(options.backup) ? Number(options.backup) : options.backup;
      const data = await unwrap(
        adminClient(command).POST('/admin/servers/{server}/recover', {
          params: { path: { server: id } },
          body: { backup },
        }),
      );
      print(command, data, () => table([data as Row], serverColumns));
    });
}
