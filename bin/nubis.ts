#!/usr/bin/env -S node --max-semi-space-size=4
// The nubis command: serve the API, run migrations, or run the sweeps alone.
// --max-semi-space-size=4 (here and in `npm start`): requests allocate little that lives, and
// V8's default young generation, grown under load, would be most of the resident memory.

import { enableCompileCache } from 'node:module';
import { parseArgs } from 'node:util';
import { ConfigError, configTable, loadConfig } from '../src/config.ts';

// Node's on-disk code cache (in the OS temp directory): later starts skip most of the
// compiling of Fastify, Kysely and TypeBox. Everything heavy is imported after this line.
enableCompileCache();

const help = `Usage: nubis <command> [options]

Commands:
  serve [--no-sweeps]   serve the HTTP API (runs migrations first); the default
  migrate               apply database migrations and exit
  sweep [--once]        run the periodic sweeps without serving HTTP
  compute setup         prepare the LXD/Incus engine for the catalog (pool, networks, profile; idempotent)
  images build [--only tiny|debian] [--mirror URL]
                        build the engine images from Debian's packages and import them
  help                  show this help

Configuration comes from environment variables:

${configTable()}
`;

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      'no-sweeps': { type: 'boolean' },
      once: { type: 'boolean' },
      only: { type: 'string' },
      mirror: { type: 'string' },
    },
  });
  const command = values.help ? 'help' : (positionals[0] ?? 'serve');
  if (command === 'help') {
    process.stdout.write(help);
    return;
  }
  const config = loadConfig();
  if (command === 'serve') {
    const { startServer } = await import('../src/server.ts');
    const server = await startServer(config, { sweeps: values['no-sweeps'] ? false : undefined });
    process.stderr.write(
      `${JSON.stringify({
        level: 'info',
        time: Date.now(),
        msg: `listening at ${server.url}`,
        storage: server.ctx.dialect,
        clock: server.ctx.clock.mode,
      })}\n`,
    );
    const stop = (signal: string) => {
      server.ctx.log.info({ signal }, 'shutting down: finishing in-flight requests');
      server.close().then(
        () => process.exit(0),
        (error: unknown) => {
          server.ctx.log.error({ err: (error as Error).message }, 'shutdown failed');
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    return;
  }
  if (command === 'migrate') {
    const { prepareStorage, createLogger } = await import('../src/server.ts');
    const storage = await prepareStorage(config, createLogger(config.logLevel));
    process.stdout.write('migrations are up to date\n');
    await storage.close();
    return;
  }
  if (command === 'sweep') {
    const { prepareStorage, createPlatform, createLogger } = await import('../src/server.ts');
    const { loadCatalog } = await import('../src/catalog/catalog.ts');
    const { runSweepRound, startSweeper } = await import('../src/sweeps/sweeps.ts');
    const log = createLogger(config.logLevel);
    loadCatalog(config.catalogFile, 0);
    const storage = await prepareStorage(config, log);
    const ctx = await createPlatform(config, storage, log);
    if (values.once) {
      await runSweepRound(ctx);
      await storage.close();
      return;
    }
    const sweeper = startSweeper(ctx, config.sweepIntervalSeconds * 1000);
    const keepAlive = setInterval(() => {}, 1 << 30);
    const stop = () => {
      clearInterval(keepAlive);
      sweeper
        .stop()
        .then(() => storage.close())
        .then(() => process.exit(0));
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
    return;
  }
  if (command === 'compute' && positionals[1] === 'setup') {
    const { runComputeSetup } = await import('../src/compute/lxd/commands.ts');
    await runComputeSetup(config);
    return;
  }
  if (command === 'images' && positionals[1] === 'build') {
    const { runImagesBuild } = await import('../src/compute/lxd/commands.ts');
    await runImagesBuild(config, { only: values.only, mirror: values.mirror });
    return;
  }
  throw new ConfigError(`unknown command "${positionals.join(' ')}"; see nubis --help`);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`nubis: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`nubis: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
