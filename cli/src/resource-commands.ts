// `nubis floating-ip|vpc|ssh-key|token|invoice|region|image|plan`: the account's network
// resources, keys and tokens, its invoices, and the catalog, through the SDK.

import type { Command } from 'commander';
import { unwrap } from '@nubis/sdk';
import { type CommandKit, number, ref, type Row } from './command-kit.ts';
import { type Column, details, rowsOf } from './output.ts';

export function addResourceCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, client, print, printRows, done } = kit;

  // --- floating IPs, VPCs, SSH keys, tokens -------------------------------------------------
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

  const sshKey = group(program, 'ssh-key', 'SSH keys');
  leaf(sshKey, 'list', 'list SSH keys').action(async (_options, command: Command) => {
    const data = await unwrap(client(command).GET('/v1.3/ssh_key/list'));
    printRows(command, data, data.ssh_keys as Row[], [
      { header: 'ID', value: 'id' },
      { header: 'NAME', value: 'name' },
      { header: 'FINGERPRINT', value: 'fingerprint' },
      { header: 'CREATED', value: 'created' },
    ]);
  });
  leaf(sshKey, 'create', 'add an SSH public key')
    .requiredOption('--name <name>', 'key name')
    .requiredOption('--public-key <key>', 'the key in OpenSSH one-line format')
    .action(async (options, command: Command) => {
      const data = await unwrap(
        client(command).POST('/v1.3/ssh_key/create', { body: { name: options.name, public_key: options.publicKey } }),
      );
      done(command, data, `SSH key ${data.name} (${data.fingerprint})`);
    });
  leaf(sshKey, 'rename <key>', 'rename an SSH key')
    .requiredOption('--name <name>', 'the new name')
    .action(async (id: string, options, command: Command) => {
      const key = ref(id);
      const answer = await unwrap(
        client(command).PATCH('/v1.3/ssh_key/rename', {
          body: { name: options.name, ...(typeof key === 'number' ? { id: key } : { uuid: key }) } as never,
        }),
      );
      done(command, answer, `SSH key ${id} renamed`);
    });
  leaf(sshKey, 'remove <key>', 'remove an SSH key').action(async (id: string, _options, command: Command) => {
    await unwrap(client(command).DELETE('/v1.3/ssh_key/remove/{ssh_key_id}', { params: { path: { ssh_key_id: id } } }));
    done(command, { removed: true }, `SSH key ${id} removed`);
  });

  const token = group(program, 'token', 'API tokens');
  leaf(token, 'list', "list the account's tokens").action(async (_options, command: Command) => {
    const data = await unwrap(client(command).GET('/v1.3/account/token_list'));
    printRows(command, data, data.tokens as Row[], [
      { header: 'ID', value: 'id' },
      { header: 'UUID', value: 'uuid' },
      { header: 'NAME', value: 'name' },
      { header: 'CREATED', value: 'created' },
      { header: 'LAST_USED', value: 'last_used' },
    ]);
  });
  leaf(token, 'create', 'create a token')
    .requiredOption('--name <name>', 'token name')
    .action(async (options, command: Command) => {
      const data = await unwrap(client(command).POST('/v1.3/account/token_create', { body: { name: options.name } }));
      done(command, data, data.token);
    });
  leaf(token, 'rename <uuid>', 'rename a token')
    .requiredOption('--name <name>', 'the new name')
    .action(async (uuid: string, options, command: Command) => {
      const answer = await unwrap(
        client(command).PATCH('/v1.3/account/token_rename', { body: { uuid, name: options.name } }),
      );
      done(command, answer, `token ${uuid} renamed`);
    });
  leaf(token, 'remove <token>', 'revoke a token (id or uuid)').action(
    async (id: string, _options, command: Command) => {
      await unwrap(
        client(command).DELETE('/v1.3/account/token_remove/{token_id}', { params: { path: { token_id: id } } }),
      );
      done(command, { removed: true }, `token ${id} removed`);
    },
  );

  // --- billing and catalog ------------------------------------------------------------------
  const invoice = group(program, 'invoice', 'invoice items');
  leaf(invoice, 'list', 'list invoice items, newest first')
    .option('--start <n>', 'skip this many items', number('--start'), 0)
    .action(async (options, command: Command) => {
      const data = await unwrap(
        client(command).GET('/v1.3/invoice/list', { params: { query: { start_id: options.start } } }),
      );
      printRows(command, data, data.invoices as Row[], [
        { header: 'TYPE', value: 'resource_type' },
        { header: 'PER_HOUR', value: 'amount_hr' },
        { header: 'PER_MONTH', value: 'amount_mo' },
        { header: 'USAGE', value: 'usage' },
        { header: 'ACTIVE', value: 'active' },
        { header: 'CREATED', value: 'ts_created' },
      ]);
    });
  leaf(invoice, 'sum', 'charges by resource type over a period')
    .option('--from <time>', 'start (YYYY-MM-DDTHH:MM:SSZ)')
    .option('--to <time>', 'end (YYYY-MM-DDTHH:MM:SSZ)')
    .action(async (options, command: Command) => {
      const data = await unwrap(
        client(command).POST('/v1.3/invoice/sum', {
          body: { ...(options.from ? { from: options.from } : {}), ...(options.to ? { to: options.to } : {}) } as never,
        }),
      );
      print(command, data, () => details(data as Row));
    });

  const catalog = (name: 'region' | 'image' | 'plan', columns: Column[]) => {
    const command = group(program, name, `${name}s of the catalog`);
    const list = leaf(command, 'list', `list ${name}s`);
    if (name !== 'region') list.option('--region <id>', 'only those offered in this region', number('--region'));
    list.action(async (options, leafCommand: Command) => {
      const api = client(leafCommand);
      const query = options.region ? { params: { query: { region_id: options.region } } } : {};
      const data =
        name === 'region'
          ? await unwrap(api.GET('/v1.3/region/list'))
          : name === 'image'
            ? await unwrap(api.GET('/v1.3/image/list', query as never))
            : await unwrap(api.GET('/v1.3/plan/list', query as never));
      const listing = (data as Row)[`${name}s`];
      printRows(leafCommand, data, rowsOf(listing), columns);
    });
  };
  catalog('region', [
    { header: 'ID', value: 'id' },
    { header: 'CITY', value: 'city' },
    { header: 'COUNTRY', value: 'country' },
    { header: 'CONTINENT', value: 'continent' },
  ]);
  catalog('image', [
    { header: 'ID', value: 'id' },
    { header: 'NAME', value: 'name' },
    { header: 'TYPE', value: 'type' },
    { header: 'MIN_DISK_GB', value: 'min_disk_gb' },
  ]);
  catalog('plan', [
    { header: 'ID', value: 'id' },
    { header: 'NAME', value: 'name' },
    { header: 'VCPUS', value: 'vcpus' },
    { header: 'MEMORY_MB', value: 'memory_mb' },
    { header: 'DISK_GB', value: 'disk_gb' },
    { header: 'PER_MONTH', value: 'price_monthly' },
  ]);
}
