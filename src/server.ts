// Assembles a running Nubis: storage and migrations, clock, secrets, catalog, mail, rate
// limits, the HTTP app and the sweeper; and takes it all down again in order.

import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config.ts';
import { migrate, openStorage, type Storage } from './db/connect.ts';
import { SystemClock, VirtualClock, type Clock } from './platform/clock.ts';
import { createSecrets, loadServerKey } from './platform/secrets.ts';
import type { Logger, Platform } from './platform/context.ts';
import { loadCatalog } from './catalog/catalog.ts';
import { smtpTransport } from './mail/mail.transport.ts';
import { settingsRepository } from './settings/settings.repository.ts';
import { createRateLimiters } from './http/rate-limit.ts';
import { buildApp } from './http/app.ts';
import { startSweeper } from './sweeps/sweeps.ts';

const packageVersion = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface RunningServer {
  app: FastifyInstance;
  ctx: Platform;
  url: string;
  close(): Promise<void>;
}

const consoleLogger = (level: string): Logger => {
  const quiet = level === 'silent' || level === 'fatal' || level === 'error';
  const write = (lvl: string) => (obj: object | string, message?: string) => {
    if (quiet && lvl !== 'error') return;
    const entry = typeof obj === 'string' ? { msg: obj } : { ...obj, msg: message };
    process.stderr.write(JSON.stringify({ level: lvl, time: Date.now(), ...entry }) + '\n');
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
};

/** Opens storage and runs migrations: what `nubis migrate` does, and the first step of serve. */
export async function prepareStorage(config: Config, log: Logger): Promise<Storage> {
  const storage = await openStorage(config, (message) => log.warn(message));
  const applied = await migrate(storage);
  if (applied.length) log.info({ migrations: applied }, 'migrations applied');
  return storage;
}

export async function createPlatform(config: Config, storage: Storage, log: Logger): Promise<Platform> {
  let clock: Clock = new SystemClock();
  if (config.clock === 'virtual') {
    const saved = await settingsRepository.get(storage.db, 'clock_offset_ms');
    clock = new VirtualClock(saved ? Number(saved) : 0);
  }
  return {
    config,
    db: storage.db,
    dialect: storage.dialect,
    clock,
    secrets: createSecrets(loadServerKey(config.secretKey, config.dataDir), config.passwordHashCost),
    catalog: loadCatalog(config.catalogFile, clock.now()),
    mailTransport: config.smtpUrl ? smtpTransport(config.smtpUrl) : null,
    log,
  };
}

export async function startServer(config: Config, options: { sweeps?: boolean } = {}): Promise<RunningServer> {
  const log = consoleLogger(config.logLevel);
  const storage = await prepareStorage(config, log);
  const ctx = await createPlatform(config, storage, log);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false }) : null;
  redis?.on('error', (error) => log.warn({ err: error.message }, 'redis unavailable; rate limits fall back to memory'));
  const limiters = createRateLimiters(config, redis);
  const app = await buildApp({ ctx, storage, limiters, version: packageVersion });
  const address = await app.listen({ port: config.port, host: config.host });
  const sweeper = (options.sweeps ?? config.sweeps) ? startSweeper(ctx, config.sweepIntervalSeconds * 1000) : null;

  let closing: Promise<void> | null = null;
  return {
    app,
    ctx,
    url: address,
    close() {
      closing ??= (async () => {
        await sweeper?.stop();
        await app.close();
        ctx.mailTransport?.close();
        redis?.disconnect();
        await storage.close();
      })();
      return closing;
    },
  };
}
