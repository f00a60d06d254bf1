// `nubis floating-ip`: reserve, attach, detach and release floating IPs, through the SDK.

import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import { type CommandKit, number, ref, type Row } from '../command-kit.ts';

export function addFloatingIpCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, client, printRows, done } = kit;
  const floating = group(program, 'floating-ip', 'floating IPs');
  leaf(floating, 'list', 'list floating IPs').action(async (_options, command: Command) => {
    const data = await unwrap(client(command).GET('/v1.3/floating_ip/list'));
    printRows(command, data, data.floating_ips as Row[], [
      { header: 'ID', value: 'id' },
      { header: 'ADDRESS', value: 'address' },
      { header: 'REGION', value: 'region_id' },
      { header: 'SERVER', value: 'server_id' },
      { header: 'CREATED', value: 'created' },
    ]);
  });
  leaf(floating, 'create', 'reserve a floating IP')
    .requiredOption('--region <id>', 'region id', number('--region'))
    .option('--ipv6', 'an IPv6 address instead of IPv4')
    .action(async (options, command: Command) => {
      const data = await unwrap(
        client(command).POST('/v1.3/floating_ip/create', {
          body: { region_id: options.region, ip_version: options.ipv6 ? 6 : 4 } as never,
        }),
      );
      done(command, data, `floating IP ${data.ip_address} (${data.uuid})`);
    });
  for (const name of ['attach', 'detach'] as const)
    leaf(
      floating,
      `${name} <ip> <server>`,
      `${name} a floating IP ${name === 'attach' ? 'to' : 'from'} a server`,
    ).action(async (ip: string, id: string, _options, command: Command) => {
      const api = client(command);
      const body = { ip_id: ref(ip), server_id: ref(id) };
      const answer =
        name === 'attach'
          ? await unwrap(api.PATCH('/v1.3/floating_ip/attach', { body }))
          : await unwrap(api.PATCH('/v1.3/floating_ip/detach', { body }));
      done(command, answer, `floating IP ${ip} ${name}ed`);
    });
  leaf(floating, 'remove <ip>', 'release a floating IP').action(async (ip: string, _options, command: Command) => {
    await unwrap(client(command).DELETE('/v1.3/floating_ip/remove/{ip_id}', { params: { path: { ip_id: ip } } }));
    done(command, { removed: true }, `floating IP ${ip} removed`);
  });
}
