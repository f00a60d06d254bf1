// The nubis command's customer and operator commands. Every call goes through @nubis/sdk;
// Commander parses the command line (subcommands, generated --help, unknown options refused).
// Tables for people, `-o json` for scripts, one line on stderr for every error, and exit codes
// a script can rely on (exitCodes in command-kit.ts, listed in the README). The commands of each
// area are modules of their own (resource-, operator-, emulator-commands.ts).

import { Command, CommanderError, Option } from 'commander';
import {
  createNubisClient,
  NubisError,
  type NubisClient,
  type PowerState,
  unwrap,
  WaitTimeoutError,
  waitForServer,
} from '@nubis/sdk';
import { activeContext, type Context, readContexts, writeContexts } from './context.ts';
import { type Column, details, type Format, table } from './output.ts';
import { CliError, type CommandKit, exitCodes, number, ref, type Row } from './command-kit.ts';
import { addOperatorCommands } from './operator-commands.ts';
import { addResourceCommands } from './resource-commands.ts';

export { exitCodes } from './command-kit.ts';

/** The top-level commands this package answers; bin/nubis.ts sends these here. */
export const cliCommands = [
  'login',
  'logout',
  'context',
  'account',
  'server',
  'snapshot',
  'backup',
  'floating-ip',
  'vpc',
  'ssh-key',
  'token',
  'invoice',
  'region',
  'image',
  'plan',
  'admin',
];

interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

interface GlobalOptions {
  output: Format;
  context?: string;
}

export async function runCli(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return exitCodes.ok;
      io.stderr.write(`nubis: ${oneLine(error.message.replace(/^error: /, ''))}\n`);
      return exitCodes.usage;
    }
    const [message, code] = describe(error);
    io.stderr.write(`nubis: ${oneLine(message)}\n`);
    return code;
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function describe(error: unknown): [string, number] {
  if (error instanceof CliError) return [error.message, error.code];
  if (error instanceof WaitTimeoutError) return [error.message, exitCodes.timeout];
  if (error instanceof NubisError) {
    const byStatus: Record<number, number> = {
      400: exitCodes.usage,
      401: exitCodes.auth,
      403: exitCodes.auth,
      404: exitCodes.notFound,
      409: exitCodes.conflict,
      402: exitCodes.payment,
      429: exitCodes.rateLimited,
    };
    return [error.message, byStatus[error.status] ?? exitCodes.failed];
  }
  // fetch's own failure: no answer at all (refused, unknown host, reset).
  const cause = (error as { cause?: { code?: string; errors?: { code?: string }[] } }).cause;
  if ((error as Error)?.message === 'fetch failed' || cause?.code)
    return [
      `cannot reach the server: ${cause?.code ?? cause?.errors?.[0]?.code ?? (error as Error).message}`,
      exitCodes.unreachable,
    ];
  return [(error as Error).message ?? String(error), exitCodes.failed];
}

function buildProgram(io: Io): Command {
  const program = new Command('nubis');
  // Errors become one line (runCli), never Commander's own exit.
  const configure = (command: Command): Command =>
    command
      .exitOverride()
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
        outputError: () => {},
      })
      .showSuggestionAfterError(true);
  configure(program)
    .description('Customer and operator commands for a Nubis server (see also: nubis help for the server commands)')
    .addOption(
      new Option('-o, --output <format>', 'table for people, json for scripts')
        .choices(['table', 'json'])
        .default('table'),
    )
    .option('--context <name>', 'the stored context to use (default: the current one)')
    .addHelpText(
      'after',
      `
A context (URL and token) is stored by \`nubis login\`; NUBIS_URL, NUBIS_TOKEN and ADMIN_TOKEN override it.
Exit codes: 0 ok, 1 failed, 2 usage or input refused (400), 3 not logged in or not allowed (401/403),
4 not found, 5 wrong state (409), 6 payment required (402), 7 rate limited (429), 8 --wait gave up,
9 server unreachable.`,
    );

  const globals = (command: Command): GlobalOptions => command.optsWithGlobals() as GlobalOptions;
  const context = (command: Command): Context => {
    const found = activeContext(globals(command).context, io.env);
    if (!found) throw new CliError('not logged in: run nubis login --url URL (or set NUBIS_URL)', exitCodes.auth);
    return found;
  };
  const client = (command: Command): NubisClient => {
    const found = context(command);
    if (!found.token) throw new CliError('no token in this context: run nubis login', exitCodes.auth);
    return createNubisClient({ baseUrl: found.url, token: found.token });
  };
  const adminClient = (command: Command): NubisClient => {
    const found = context(command);
    if (!found.admin_token)
      throw new CliError('no operator token: run nubis login --admin-token TOKEN (or set ADMIN_TOKEN)', exitCodes.auth);
    return createNubisClient({ baseUrl: found.url, token: found.admin_token });
  };
  const print = (command: Command, data: unknown, human: () => string) => {
    io.stdout.write(globals(command).output === 'json' ? `${JSON.stringify(data ?? null, null, 2)}\n` : human());
  };
  const printRows = (command: Command, data: unknown, rows: Row[], columns: Column[]) =>
    print(command, data, () => table(rows, columns));
  const done = (command: Command, data: unknown, message: string) =>
    print(command, data ?? { success: true }, () => `${message}\n`);

  /** A group: a command of subcommands; alone, it is a usage error naming where help is. */
  const group = (parent: Command, name: string, description: string): Command => {
    const command = configure(parent.command(name).description(description));
    command.action(() => {
      throw new CliError(`missing command: see nubis ${command.name()} --help`, exitCodes.usage);
    });
    return command;
  };
  const leaf = (parent: Command, spec: string, description: string): Command =>
    configure(parent.command(spec).description(description));

  /** --wait: polls until the server settles, with a progress line on a terminal only. */
  const waitOption = (command: Command) =>
    command
      .option('--wait', 'wait until the server reaches the state')
      .option('--timeout <seconds>', 'give up waiting after this long (exit 8)', number('--timeout'), 600);
  const settle = async (
    command: Command,
    api: NubisClient,
    server: number | string,
    states: (PowerState | 'removed')[],
    options: { wait?: boolean; timeout: number },
  ): Promise<unknown> => {
    if (!options.wait) return undefined;
    const tty = io.stderr.isTTY === true && globals(command).output !== 'json';
    const started = Date.now();
    const frames = ['|', '/', '-', '\\'];
    let frame = 0;
    try {
      return await waitForServer(api, server, states, {
        timeoutMs: options.timeout * 1000,
        intervalMs: 500,
        onPoll: (seen) => {
          if (tty)
            io.stderr.write(
              `\r${frames[frame++ % frames.length]} server ${server}: ${seen.power} (${Math.round((Date.now() - started) / 1000)}s)\u001b[K`,
            );
        },
      });
    } finally {
      if (tty) io.stderr.write('\r\u001b[K');
    }
  };

  /** An accepted server action: with --wait, the state the server settled in; else that it was accepted. */
  const actionDone = async (
    command: Command,
    api: NubisClient,
    server: number | string,
    answer: unknown,
    accepted: string,
    options: { wait?: boolean; timeout: number },
    states: (PowerState | 'removed')[] = ['running', 'stopped'],
  ) => {
    const settled = await settle(command, api, server, states, options);
    done(command, settled ?? answer, settled ? `server ${server} is ${(settled as Row).power}` : accepted);
  };

  // --- contexts ---------------------------------------------------------------------------
  leaf(program, 'login', 'store a context (URL and token) in the config directory, mode 0600')
    .requiredOption('--url <url>', 'where Nubis listens, e.g. http://localhost:8080')
    .option('--token <token>', 'an account token (else --email and --password, or NUBIS_PASSWORD)')
    .option('--email <email>', "the account's e-mail, to log in with its password")
    .option('--password <password>', 'the password (or NUBIS_PASSWORD)')
    .option('--admin-token <token>', "the server's ADMIN_TOKEN, for nubis admin …")
    .option('--name <name>', 'the context name', 'default')
    .action(async (options, command: Command) => {
      const url = String(options.url).replace(/\/+$/, '');
      let token: string | undefined = options.token;
      const password = options.password ?? io.env.NUBIS_PASSWORD;
      if (!token && options.email) {
        if (!password) throw new CliError('--email needs --password (or NUBIS_PASSWORD)', exitCodes.usage);
        const answer = await unwrap(
          createNubisClient({ baseUrl: url }).POST('/v1.3/account/login', {
            body: { email: options.email, password },
          }),
        );
        token = answer.token;
      }
      if (!token && !options.adminToken)
        throw new CliError('give --token, --email with --password, or --admin-token', exitCodes.usage);
      let who = 'the operator';
      if (token) {
        // Login answers a token even for a wrong password (it opens nothing): check it.
        const account = await unwrap(createNubisClient({ baseUrl: url, token }).GET('/v1.3/account/info')).catch(
          (error: unknown) => {
            if (error instanceof NubisError && error.status === 401)
              throw new CliError('wrong e-mail, password or token', exitCodes.auth);
            throw error;
          },
        );
        who = account.email;
      }
      if (options.adminToken)
        await unwrap(createNubisClient({ baseUrl: url, token: options.adminToken }).GET('/admin/clock'));
      const file = readContexts(io.env);
      file.contexts[options.name] = {
        url,
        ...(token ? { token } : {}),
        ...(options.adminToken ? { admin_token: options.adminToken } : {}),
      };
      file.current = options.name;
      const path = writeContexts(file, io.env);
      done(
        command,
        { context: options.name, url, email: token ? who : null, file: path },
        `logged in to ${url} as ${who} (context ${options.name}, saved in ${path})`,
      );
    });

  leaf(program, 'logout', 'forget the current context (or --context)').action((_options, command: Command) => {
    const file = readContexts(io.env);
    const name = globals(command).context ?? file.current;
    if (!name || !file.contexts[name]) throw new CliError('no such context', exitCodes.notFound);
    delete file.contexts[name];
    if (file.current === name) file.current = Object.keys(file.contexts)[0] ?? null;
    writeContexts(file, io.env);
    done(command, { removed: name }, `forgot context ${name}`);
  });

  const contexts = group(program, 'context', 'stored contexts');
  leaf(contexts, 'list', 'list the stored contexts').action((_options, command: Command) => {
    const file = readContexts(io.env);
    const rows = Object.entries(file.contexts).map(([name, entry]) => ({
      current: name === file.current ? '*' : '',
      name,
      url: entry.url,
      token: entry.token ? 'yes' : 'no',
      operator: entry.admin_token ? 'yes' : 'no',
    }));
    printRows(command, { current: file.current, contexts: rows.map(({ current: _c, ...row }) => row) }, rows, [
      { header: '', value: 'current' },
      { header: 'NAME', value: 'name' },
      { header: 'URL', value: 'url' },
      { header: 'TOKEN', value: 'token' },
      { header: 'OPERATOR', value: 'operator' },
    ]);
  });
  leaf(contexts, 'use <name>', 'make a stored context the current one').action(
    (name: string, _options, command: Command) => {
      const file = readContexts(io.env);
      if (!file.contexts[name]) throw new CliError(`no context named ${name}`, exitCodes.notFound);
      file.current = name;
      writeContexts(file, io.env);
      done(command, { current: name }, `now using context ${name}`);
    },
  );

  // --- account ----------------------------------------------------------------------------
  const account = group(program, 'account', 'your account');
  leaf(account, 'info', "the account's profile, balance and limits").action(async (_options, command: Command) => {
    const data = await unwrap(client(command).GET('/v1.3/account/info'));
    print(command, data, () =>
      details({
        id: data.id,
        email: data.email,
        activated: data.activated,
        balance: data.balance,
        servers: `${data.servers.running} running, limit ${data.servers.limit}`,
        usage_per_hour: data.billing.usage,
        duedate: data.billing.duedate,
      }),
    );
  });

  // --- servers ----------------------------------------------------------------------------
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
  waitOption(leaf(server, 'remove <server>', 'remove a server at once (billing stops)')).action(
    async (id: string, options, command: Command) => {
      const api = client(command);
      await unwrap(api.DELETE('/v1.3/server/remove/{server_id}', { params: { path: { server_id: id } } }));
      await settle(command, api, id, ['removed'], options);
      done(command, { removed: true }, `server ${id} removed`);
    },
  );

  // --- snapshots and backups ----------------------------------------------------------------
  const snapshotColumns: Column[] = [
    { header: 'ID', value: 'id' },
    { header: 'NAME', value: 'name' },
    { header: 'TYPE', value: 'type' },
    { header: 'STATUS', value: 'status' },
    { header: 'SERVER', value: 'server_id' },
    { header: 'SIZE_GB', value: 'size_gb' },
    { header: 'CREATED', value: 'created' },
  ];
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

  const kit: CommandKit = { group, leaf, client, adminClient, print, printRows, done };
  addResourceCommands(program, kit);
  addOperatorCommands(program, kit);

  return program;
}

/** The CLI part of `nubis --help`: the command groups and their one-line descriptions. */
export function cliHelp(): string {
  const program = buildProgram({ stdout: process.stdout, stderr: process.stderr, env: process.env });
  const width = Math.max(...program.commands.map((command) => command.name().length)) + 2;
  const rows = program.commands.map(
    (command) =>
      `  ${command.name().padEnd(width)}${command.description()}${command.commands.length ? ` (${command.commands.map((sub) => sub.name()).join('|')})` : ''}`,
  );
  return `\nCustomer and operator commands (nubis <command> --help for each; -o json for scripts):\n${rows.join('\n')}\n`;
}
