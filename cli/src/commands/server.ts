// `nubis server`: deploy, show, power, rebuild, resize, rescue and remove servers, through the SDK;
// --wait polls until the server settles.

import type { Command } from 'commander';
import { type PowerState, unwrap } from '@nubis/sdk';
import { type CommandKit, ref, type Row } from '../command-kit.ts';
import { type Column, details } from '../output.ts';

export function addServerCommands(program: Command, kit: CommandKit): void {
  const { group, leaf, client, print, printRows, done, waitOption, settle, actionDone } = kit;
  const serverColumns: Column[] = [
    { header: 'ID', value: 'id' },
    { header: 'NAME', value: 'name' },
    { header: 'HOSTNAME', value: 'info.hostname' },
    { header: 'POWER', value: 'power' },
    { header: 'REGION', value: 'info.region' },
    { header: 'PLAN', value: 'info.plan' },
    { header: 'IPV4', value: (row) => (row.iface as { v4?: { address: string }[] } | null)?.v4?.[0]?.address },
  ];
  const showServer = (command: Command, data: Row) =>
    print(command, data, () => {
      const info = data.info as Row;
      const v4 = (data.iface as { v4?: { address: string }[] } | null)?.v4?.map((entry) => entry.address);
      return details({
        id: data.id,
        uuid: data.uuid,
        name: data.name,
        hostname: info.hostname,
        power: data.power,
        region: info.region,
        image: info.image,
        plan: info.plan,
        ipv4: v4 ?? null,
        price_monthly: data.price,
        created: data.created,
        features: info.features,
      });
    });

  const server = group(program, 'server', 'servers');
  leaf(server, 'list', 'list your servers').action(async (_options, command: Command) => {
    const data = await unwrap(client(command).GET('/v1.3/server/list'));
    printRows(command, data, data.servers as Row[], serverColumns);
  });
  leaf(server, 'info <server>', 'show one server (id or uuid)').action(
    async (id: string, _options, command: Command) => {
      const data = await unwrap(
        client(command).GET('/v1.3/server/info/{server_id}', { params: { path: { server_id: id } } }),
      );
      showServer(command, data as Row);
    },
  );
  waitOption(
    leaf(server, 'create', 'deploy a server')
      .requiredOption('--hostname <name>', 'host name')
      .option('--label <label>', 'label (default: the host name)')
      .requiredOption('--region <id>', 'region id (nubis region list)')
      .requiredOption('--image <id>', 'image id (nubis image list)')
      .requiredOption('--plan <id>', 'plan id (nubis plan list)')
      .option('--ssh-key <id>', 'SSH key id or uuid')
      .option('--vpc <id>', 'VPC id or uuid')
      .option('--backups', 'automatic backups')
      .option('--ipv6', 'IPv6 networking')
      .option('--ddos-protection', 'DDoS protection'),
  ).action(async (options, command: Command) => {
    const api = client(command);
    const created = await unwrap(
      api.POST('/v1.3/server/create', {
        body: {
          hostname: options.hostname,
          label: options.label ?? options.hostname,
          region: ref(options.region),
          image: ref(options.image),
          plan: ref(options.plan),
          ...(options.sshKey ? { ssh_key: ref(options.sshKey) } : {}),
          ...(options.vpc ? { vpc: ref(options.vpc) } : {}),
          ...(options.backups ? { auto_backups: true } : {}),
          ...(options.ipv6 ? { ipv6_networking: true } : {}),
          ...(options.ddosProtection ? { ddos_protection: true } : {}),
        },
      }),
    );
    const settled = await settle(command, api, created.id, ['running'], options);
    showServer(command, (settled ?? created) as Row);
  });
  const power = (name: 'start' | 'stop' | 'reboot', description: string, target: PowerState[]) =>
    waitOption(leaf(server, `${name} <server>`, description)).action(async (id: string, options, command: Command) => {
      const api = client(command);
      const body = { server_id: ref(id) };
      const answer =
        name === 'start'
          ? await unwrap(api.PATCH('/v1.3/server/start', { body }))
          : name === 'stop'
            ? await unwrap(api.PATCH('/v1.3/server/stop', { body }))
            : await unwrap(api.PATCH('/v1.3/server/reboot', { body }));
      await actionDone(command, api, id, answer, `server ${id}: ${name} accepted`, options, target);
    });
  power('start', 'power a server on', ['running']);
  power('stop', 'power a server off', ['stopped']);
  power('reboot', 'restart a server', ['running']);
  waitOption(
    leaf(server, 'rebuild <server>', 'reinstall a server from an image (its data is lost)').requiredOption(
      '--image <id>',
      'image id',
    ),
  ).action(async (id: string, options, command: Command) => {
    const api = client(command);
    const answer = await unwrap(
      api.POST('/v1.3/server/rebuild', { body: { server_id: ref(id), image_id: ref(options.image) } }),
    );
    await actionDone(command, api, id, answer, `server ${id}: rebuild accepted`, options);
  });
  waitOption(
    leaf(server, 'resize <server>', 'move a server to another plan').requiredOption('--plan <id>', 'plan id'),
  ).action(async (id: string, options, command: Command) => {
    const api = client(command);
    const answer = await unwrap(
      api.POST('/v1.3/server/resize', { body: { server_id: ref(id), plan_id: ref(options.plan) } }),
    );
    await actionDone(command, api, id, answer, `server ${id}: resize accepted`, options);
  });
  waitOption(
    leaf(server, 'rescue <server>', 'boot into the rescue system (--disable: back onto the disk)').option(
      '--disable',
      'leave rescue mode',
    ),
  ).action(async (id: string, options, command: Command) => {
    const api = client(command);
    const answer = await unwrap(
      api.POST('/v1.3/server/rescue', { body: { server_id: ref(id), enable: !options.disable } }),
    );
    await actionDone(command, api, id, answer, `server ${id}: rescue ${options.disable ? 'off' : 'on'}`, options);
  });
  leaf(server, 'activity <server>', "a server's history, newest first, with who or what caused each").action(
    async (id: string, _options, command: Command) => {
      const data = await unwrap(
        client(command).GET('/v1.3/server/activity/{server_id}', { params: { path: { server_id: id } } }),
      );
      printRows(command, data, data.activity as Row[], [
        { header: 'TIME', value: 'occurred' },
        { header: 'EVENT', value: 'type' },
        {
          header: 'WHAT',
          value: (row) => {
            const data = row.data as Record<string, unknown>;
            return data.transition ?? data.power ?? data.name ?? '';
          },
        },
        { header: 'BY', value: 'cause' },
      ]);
    },
  );
  leaf(server, 'metrics <server>', "a server's CPU, memory, disk and network over the last hour, day or month")
    .option('--period <period>', 'hour, day or month', 'hour')
    .action(async (id: string, options, command: Command) => {
      const data = await unwrap(
        client(command).GET('/v1.3/server/metrics/{server_id}', {
          params: { path: { server_id: id }, query: { period: options.period } },
        }),
      );
      const fixed = (digits: number) => (value: unknown) => (typeof value === 'number' ? value.toFixed(digits) : '–');
      printRows(command, data, data.points as Row[], [
        { header: 'TIME', value: 'time' },
        { header: 'CPU %', value: (row) => fixed(1)(row.cpu) },
        { header: 'MEMORY MB', value: (row) => fixed(0)(row.memory_mb) },
        { header: 'DISK MB', value: (row) => fixed(0)(row.disk_mb) },
        { header: 'IN B/S', value: (row) => fixed(0)(row.rx_bps) },
        { header: 'OUT B/S', value: (row) => fixed(0)(row.tx_bps) },
      ]);
    });
  waitOption(leaf(server, 'remove <server>', 'remove a server at once (billing stops)')).action(
    async (id: string, options, command: Command) => {
      const api = client(command);
      await unwrap(api.DELETE('/v1.3/server/remove/{server_id}', { params: { path: { server_id: id } } }));
      await settle(command, api, id, ['removed'], options);
      done(command, { removed: true }, `server ${id} removed`);
    },
  );
}
