#!/usr/bin/env -S node --max-semi-space-size=4 --max-old-space-size=512
// The nubis command. The server's own commands (serve, dev, migrate, sweep, compute, images) are
// one table below, one entry each, so adding one is a small merge; the customer and operator
// commands (login, server, admin, …) are the @nubis/cli package (cli/), which talks to a running
// Nubis through @nubis/sdk only.
// --max-semi-space-size=4 (here and in `npm start`): requests allocate little that lives, and
// V8's default young generation, grown under load, would be most of the resident memory.
// --max-old-space-size=512: what Nubis holds is bounded by pages (a full reconciliation's live
// heap is ~30 MB at a million servers), but under Node's default limit (4 GB on a 24 GB machine)
// V8 lets the old generation grow to four times what lives before collecting it: ~130 MB of a
// full read's garbage, held, and the pages it pools. Under a lower limit V8's heap controller grows
// it 1.3 to 2 times (about 1.4 at 512 MB), more than ten times the live heap (docs/benchmarks.md).
// `npm start` and `npm run dev` also set NODE_COMPILE_CACHE (the directory enableCompileCache
// below uses): this file is TypeScript, and only a cache enabled before Node reads it spares
// loading Node's TypeScript stripper (~60 ms of CPU and ~15 MB resident at every start).
// MALLOC_ARENA_MAX=2 there: fewer malloc arenas for the thread pool, less memory held.

import { enableCompileCache } from 'node:module';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import type { Config } from '../src/config.ts';

// Node's on-disk code cache (in the OS temp directory): later starts skip most of the
// compiling of Fastify, Kysely and TypeBox, and the type stripping of our own files. Every other
// module, ours included, is imported after this line (a static import would come before it).
enableCompileCache();
const { ConfigError, configTable, loadConfig } = await import('../src/config.ts');

interface ServerCommand {
  usage: string;
  summary: string;
  options?: ParseArgsOptionsConfig;
  run(values: Record<string, unknown>, positionals: string[]): Promise<void>;
}

/** The server's commands, one entry each. */
const serverCommands: Record<string, ServerCommand> = {
  serve: {
    usage: 'serve [--no-sweeps]',
    summary: 'serve the HTTP API (runs migrations first); the default',
    options: { 'no-sweeps': { type: 'boolean' } },
    run: (values) =>
      serve(loadConfig(), { sweeps: values['no-sweeps'] ? false : undefined, firstRunOperatorToken: true }),
  },
  dev: {
    usage: 'dev [--port N] [--ready-json]',
    summary:
      'serve as an emulator (NUBIS_MODE=emulator): virtual clock, seeded account, its token printed; --port 0 takes a free port; --ready-json prints one JSON line (url, tokens) on stdout once ready, the log going to stderr',
    options: { port: { type: 'string' }, 'ready-json': { type: 'boolean' } },
    run: (values) =>
      serve(
        loadConfig({
          ...process.env,
          NUBIS_MODE: 'emulator',
          ...(typeof values.port === 'string' ? { PORT: values.port } : {}),
        }),
        { readyJson: values['ready-json'] === true },
      ),
  },
  migrate: {
    usage: 'migrate',
    summary: 'apply database migrations and exit',
    run: async () => {
      const config = loadConfig();
      const { prepareStorage, createLogger } = await import('../src/instance.ts');
      const storage = await prepareStorage(config, createLogger(config.logLevel));
      process.stdout.write('migrations are up to date\n');
      await storage.close();
    },
  },
  sweep: {
    usage: 'sweep [--once]',
    summary: 'run the periodic sweeps without serving HTTP',
    options: { once: { type: 'boolean' } },
    run: (values) => sweep(loadConfig(), values.once === true),
  },
  compute: {
    usage: 'compute setup|trust <token>',
    summary:
      'prepare the LXD/Incus engine for the catalog (pool, networks, profile; idempotent); trust: have a remote engine trust LXD_CLIENT_CERT with a token from `lxc config trust add`',
    run: async (_values, positionals) => {
      const { runComputeSetup, runComputeTrust } = await import('../src/compute/lxd-engine.ts');
      if (positionals[0] === 'setup') return runComputeSetup(loadConfig());
      if (positionals[0] === 'trust' && positionals[1]) return runComputeTrust(loadConfig(), positionals[1]);
      throw new ConfigError('unknown command; see nubis --help');
    },
  },
  backup: {
    usage: 'backup <file>',
    summary:
      "copy the SQLite database (DATA_DIR) to <file>, consistent while a server serves and writes; with DATABASE_URL it refuses and points to PostgreSQL's own tools (docs/operating.md)",
    run: async (_values, positionals) => {
      if (positionals.length !== 1) throw new ConfigError('usage: nubis backup <file>');
      const { backupDatabase } = await import('../src/db/backup.ts');
      const done = await backupDatabase(loadConfig(), positionals[0]!);
      process.stdout.write(`backed up ${done.pages} pages to ${done.file}\n`);
    },
  },
  dns: {
    usage: 'dns setup',
    summary:
      "create the reverse DNS zones of the catalog's pools on PowerDNS (PDNS_API_URL) and publish every address's PTR (idempotent)",
    run: async (_values, positionals) => {
      if (positionals[0] !== 'setup') throw new ConfigError('unknown command; see nubis --help');
      await dnsSetup(loadConfig());
    },
  },
  images: {
    usage: 'images build [--only tiny|debian|cloud] [--mirror URL]',
    summary: "build the engine images from Debian's packages and import them",
    options: { only: { type: 'string' }, mirror: { type: 'string' } },
    run: async (values, positionals) => {
      if (positionals[0] !== 'build') throw new ConfigError('unknown command; see nubis --help');
      const { runImagesBuild } = await import('../src/compute/lxd-engine.ts');
      await runImagesBuild(loadConfig(), {
        only: values.only as string | undefined,
        mirror: values.mirror as string | undefined,
      });
    },
  },
};

function help(cliHelp: string): string {
  const width = Math.max(...Object.values(serverCommands).map((command) => command.usage.length)) + 2;
  const rows = Object.values(serverCommands).map((command) => `  ${command.usage.padEnd(width)}${command.summary}`);
  return `Usage: nubis <command> [options]

Server commands:
${rows.join('\n')}
  help [config]${' '.repeat(width - 13)}show this help, or every environment variable
${cliHelp}
The server commands read their configuration from environment variables: nubis help config lists them.
`;
}

/** `nubis help config`: every variable, its default and meaning, by area (docs/configuration.md has the same tables). */
function configHelp(): string {
  return `Environment variables of the server commands (serve, dev, migrate, sweep, compute, images):

${configTable()}
`;
}

async function serve(
  config: Config,
  options: { sweeps?: boolean; readyJson?: boolean; firstRunOperatorToken?: boolean },
): Promise<void> {
  // The prebuilt bundle while it matches the sources (src/prebuilt.ts): a start links a few files
  // instead of ~1,300 modules.
  const { loadInstance } = await import('../src/prebuilt.ts');
  const { startInstance, code, saveCodeCache } = await loadInstance();
  // --ready-json: stdout carries the one ready line for a program to read, so the log goes to stderr.
  const instance = await startInstance(config, {
    sweeps: options.sweeps,
    code,
    firstRunOperatorToken: options.firstRunOperatorToken,
    ...(options.readyJson ? { logDestination: process.stderr } : {}),
  });
  if (options.readyJson)
    process.stdout.write(
      `${JSON.stringify({
        url: instance.url,
        admin_token: config.adminToken,
        account: instance.seeded
          ? { email: instance.seeded.email, password: instance.seeded.password, token: instance.seeded.token }
          : null,
        seed: config.seed,
      })}\n`,
    );
  // The first start after a build writes the bundle's code cache; the next ones read it.
  saveCodeCache();
  if (instance.operatorToken?.created)
    // Said once, as Grafana and GitLab do with their first admin password (a warning, so it shows).
    instance.ctx.log.warn(
      { file: instance.operatorToken.file },
      `operator token written to ${instance.operatorToken.file} (readable only by this user); the operator API uses it`,
    );
  if (instance.seeded) {
    // The emulator's greeting, one log line like every other: what to paste next.
    const base = instance.url.replace('://127.0.0.1:', '://localhost:');
    const { email, password, token, created } = instance.seeded;
    instance.ctx.log.info(
      { account: { email, password, token, created }, admin_token: config.adminToken },
      `emulator ready (virtual clock, accounts active at registration, relaxed rate limits${created ? `; ${email} is new, with $100 credit` : ''}): export NUBIS_URL=${base} NUBIS_TOKEN=${token} ADMIN_TOKEN=${config.adminToken}`,
    );
  }
  const stop = (signal: string) => {
    instance.ctx.log.info({ signal }, 'shutting down: finishing in-flight requests');
    // SIGTERM is a balancer's or an orchestrator's: serve on for the grace period while /readyz
    // fails. SIGINT is a person at a terminal: no wait.
    instance.close(signal === 'SIGTERM' ? config.shutdownGraceSeconds * 1000 : 0).then(
      () => process.exit(0),
      (error: unknown) => {
        instance.ctx.log.error({ err: (error as Error).message }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  // An error no listener caught is logged; an uncaught exception stops the instance in order (exit 1).
  const { guardProcess } = await import('../src/platform/process-guard.ts');
  guardProcess(instance.ctx.log, () =>
    instance.close().then(
      () => process.exit(1),
      () => process.exit(1),
    ),
  );
  if (options.readyJson) {
    // Started by a program through npx: end when it (or the npx between) is gone (src/platform/launcher.ts).
    const { watchLauncher } = await import('../src/platform/launcher.ts');
    watchLauncher((reason) => {
      instance.ctx.log.info({ reason }, 'the launcher is gone');
      stop('launcher gone');
    });
  }
}

async function dnsSetup(config: Config): Promise<void> {
  if (!config.pdnsApiUrl) throw new ConfigError('dns setup needs PDNS_API_URL and PDNS_API_KEY (docs/reverse-dns.md)');
  const { prepareStorage, createPlatform, createLogger } = await import('../src/instance.ts');
  const { setupReverseDns } = await import('../src/reverse-dns/dns-setup.ts');
  const log = createLogger(config.logLevel);
  const storage = await prepareStorage(config, log);
  try {
    const report = await setupReverseDns(await createPlatform(config, storage, log));
    for (const zone of report.created) process.stdout.write(`created zone ${zone}\n`);
    for (const zone of report.present) process.stdout.write(`present zone ${zone}\n`);
    for (const parent of report.cnamesForParent) {
      process.stdout.write(`zone ${parent.zone} is not on this DNS server: its holder must add these CNAMEs\n`);
      for (const cname of parent.cnames) process.stdout.write(`  ${cname.name} CNAME ${cname.target}\n`);
    }
    process.stdout.write(`queued ${report.queued} PTR records, published ${report.published}\n`);
  } finally {
    await storage.close();
  }
}

async function sweep(config: Config, once: boolean): Promise<void> {
  const { prepareStorage, createPlatform, createLogger } = await import('../src/instance.ts');
  const { loadCatalog } = await import('../src/catalog/catalog.ts');
  const { runSweepRound, startSweeper } = await import('../src/sweeps/sweeps.ts');
  const log = createLogger(config.logLevel);
  loadCatalog(config.catalogFile, 0);
  const storage = await prepareStorage(config, log);
  const ctx = await createPlatform(config, storage, log);
  if (once) {
    await runSweepRound(ctx);
    await storage.close();
    return;
  }
  const sweeper = startSweeper(ctx, config.sweepIntervalSeconds * 1000);
  const keepAlive = setInterval(() => {}, 1 << 30);
  const stopSweeps = () => {
    clearInterval(keepAlive);
    sweeper
      .stop()
      .then(() => storage.close())
      .then(() => process.exit(0));
  };
  process.once('SIGTERM', stopSweeps);
  process.once('SIGINT', stopSweeps);
}

/** The customer and operator commands (cli/, on @nubis/sdk), loaded only when asked for. */
const loadCli = () => import('@nubis/cli');

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // The first word that is neither an option nor the value of the CLI's -o/--output/--context.
  let at = 0;
  while (at < argv.length && argv[at]!.startsWith('-')) at += /^(-o|--output|--context)$/.test(argv[at]!) ? 2 : 1;
  const command = argv[at];
  if (command === 'help' && argv[at + 1] === 'config') {
    process.stdout.write(configHelp());
    return;
  }
  if ((command === undefined && (argv.includes('--help') || argv.includes('-h'))) || command === 'help') {
    process.stdout.write(help((await loadCli()).cliHelp()));
    return;
  }
  if (command !== undefined && !serverCommands[command]) {
    const cli = await loadCli();
    if (cli.cliCommands.includes(command)) {
      process.exitCode = await cli.runCli(argv);
      return;
    }
  }
  const entry = serverCommands[command ?? 'serve'];
  if (!entry) throw new ConfigError(`unknown command "${command}"; see nubis --help`);
  const options: ParseArgsOptionsConfig = { help: { type: 'boolean', short: 'h' }, ...entry.options };
  const { positionals, values } = parseArgs({
    args: command === undefined ? argv : [...argv.slice(0, at), ...argv.slice(at + 1)],
    allowPositionals: true,
    options,
  }) as { positionals: string[]; values: Record<string, unknown> };
  if (values.help) {
    process.stdout.write(`Usage: nubis ${entry.usage}\n\n${entry.summary}\n`);
    return;
  }
  await entry.run(values, positionals);
}

main().catch(async (error: unknown) => {
  // A bad setting stays one plain line naming the variable, as the README promises (the logger's
  // own setting may be the bad one); so does a bad command line.
  if (error instanceof ConfigError) {
    process.stderr.write(`nubis: ${error.message}\n`);
    process.exit(2);
  }
  const code = (error as { code?: string }).code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`nubis: ${(error as Error).message}\n`);
    process.exit(2);
  }
  // Anything else is a failure: one fatal line of the log's format, with its stack, on stderr.
  const { pino } = await import('pino');
  pino(pino.destination({ fd: 2, sync: true })).fatal({ err: error }, 'nubis failed');
  process.exit(1);
});
