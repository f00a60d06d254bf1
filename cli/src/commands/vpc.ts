// `nubis vpc`: virtual private clouds and their members, through the SDK.

import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import { type CommandKit, number, ref, type Row } from '../command-kit.ts';

export function addVpcCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, client, printRows, done } = kit;
  const vpc = group(program, 'vpc', 'virtual private clouds');
  leaf(vpc, 'list', 'list VPCs').action(async (_options, command: Command) => {
    const data = await unwrap(client(command).GET('/v1.3/vpc/list'));
    printRows(command, data, data.vpcs as Row[], [
      { header: 'ID', value: 'id' },
      { header: 'NAME', value: 'name' },
      { header: 'REGION', value: 'region' },
      { header: 'SERVERS', value: (row) => (Array.isArray(row.servers) ? row.servers.length : row.servers) },
      { header: 'CREATED', value: 'created' },
    ]);
  });
  leaf(vpc, 'create', 'create a VPC')
    .requiredOption('--region <id>', 'region id', number('--region'))
    .requiredOption('--name <name>', 'VPC name')
    .action(async (options, command: Command) => {
      const data = await unwrap(
        client(command).POST('/v1.3/vpc/create', { body: { region_id: options.region, name: options.name } as never }),
      );
      done(command, data, `VPC ${data.uuid} created`);
    });
  for (const name of ['attach', 'detach'] as const)
    leaf(vpc, `${name} <vpc> <server>`, `${name} a server ${name === 'attach' ? 'to' : 'from'} a VPC`).action(
      async (id: string, serverId: string, _options, command: Command) => {
        const api = client(command);
        const body = { vpc_id: ref(id), server_id: ref(serverId) };
        const answer =
          name === 'attach'
            ? await unwrap(api.PATCH('/v1.3/vpc/attach', { body }))
            : await unwrap(api.PATCH('/v1.3/vpc/detach', { body }));
        done(command, answer, `server ${serverId} ${name}ed`);
      },
    );
  leaf(vpc, 'remove <vpc>', 'remove a VPC').action(async (id: string, _options, command: Command) => {
    await unwrap(client(command).DELETE('/v1.3/vpc/remove/{vpc_id}', { params: { path: { vpc_id: id } } }));
    done(command, { removed: true }, `VPC ${id} removed`);
  });
}
