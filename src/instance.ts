// Assembles a running Nubis instance (the process; "server" names a customer's machine, src/servers/):
// storage and migrations, clock, secrets, catalog, mail, rate limits, the HTTP app and the sweeper;
// and takes it all down again in order.

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { ConfigError, type Config, redactUrl } from './config.ts';
import { migrate, openStorage, type Storage } from './db/connect.ts';
import { SystemClock, VirtualClock, type Clock } from './platform/clock.ts';
import { createSecrets, loadServerKey, serverKeyFile } from './platform/secrets.ts';
import { cryptoRandom, seededClockStart, seededRandom, seedKey } from './platform/random.ts';
import { inMemory } from './db/connect.ts';
import type { Logger, Platform } from './platform/context.ts';
import { catalogForEngine, loadCatalog } from './catalog/catalog.ts';
import type { Catalog } from './catalog/catalog.types.ts';
import { settleMailDeliveries } from './mail/mail.service.ts';
import { reverseDnsServer } from './reverse-dns/powerdns.ts';
import { withOfferedFeatures } from './catalog/region-features.ts';
import { settleWithdrawnOptions } from './servers/withdrawn-options.ts';
import { settlePtrPublishing } from './reverse-dns/reverse-dns.service.ts';
import { smtpTransport } from './mail/mail.transport.ts';
import { settingsRepository } from './settings/settings.repository.ts';
import { createRateLimiters } from './http/rate-limit.ts';
import { buildApp } from './http/app.ts';
import { servedApis } from './api/served-apis.ts';
import { createLifecycle, drainHttp, settleReceived, stopAccepting } from './http/connections.ts';
import { listenOn } from './http/listeners.ts';
import { startSweeper } from './sweeps/sweeps.ts';
import { createComputeDriver } from './compute/registry.ts';
import { createMetrics } from './platform/metrics.ts';
import { registerStateMetrics } from './metrics/state-metrics.ts';
import { startMetricsListener } from './http/metrics.ts';
import { startJobRunner } from './compute/job-runner.ts';
import { seedEmulatorAccount, type SeededAccount } from './accounts/emulator-seed.service.ts';
import { firstRunOperatorToken, type OperatorTokenFile } from './platform/operator-token.ts';
import { accountRepository } from './accounts/account.repository.ts';
import { resetState } from './state/reset.service.ts';
import { ActorCache, redisGenerations } from './tokens/actor-cache.ts';
import { redisRound } from './platform/redis-round.ts';

const packageVersion = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface RunningInstance {
  app: FastifyInstance;
  ctx: Platform;
  url: string;
  /** The METRICS_PORT listener's base URL, or null when metrics are served on the API port (or not at all). */
  metricsUrl: string | null;
  /** The emulator's seeded account (NUBIS_MODE=emulator), or null. */
  seeded: SeededAccount | null;
  /** The operator's token file when the operator API uses it (`firstRunOperatorToken`), or null. */
  operatorToken: { file: string; created: boolean } | null;
  /**
   * Stops: /readyz fails at once; for `graceMs` every request is still served (a load balancer
   * notices and stops sending); then new connections are refused, what arrived is answered, and
   * the rest of the shutdown follows.
   */
  close(graceMs?: number): Promise<void>;
}

/** Where log lines go instead of stdout (tests read the server's log through one). */
export interface LogDestination {
  write(line: string): void;
}

/** The one structured logger of the process: JSON lines on stdout, shared by Fastify (with reqId) and the services. */
export function createLogger(level: Config['logLevel'], destination?: LogDestination) {
  const options = { level, redact: ['req.headers.authorization', 'req.headers.cookie'] };
  return destination ? pino(options, destination) : pino(options);
}

/** Opens storage and runs migrations: what `nubis migrate` does, and the first step of serve. */
export async function prepareStorage(config: Config, log: Logger): Promise<Storage> {
  let storage: Storage;
  try {
    storage = await openStorage(config, (message) => log.warn(message));
  } catch (error) {
    // Start-up stops with one line naming the variable that points at the storage.
    const where = config.databaseUrl ? `DATABASE_URL ${redactUrl(config.databaseUrl)}` : `DATA_DIR ${config.dataDir}`;
    throw new ConfigError(`${where}: storage cannot be opened: ${(error as Error).message}`);
  }
  let applied: string[];
  try {
    applied = await migrateRetryingDroppedSchemas(storage);
  } catch (error) {
    await storage.close().catch(() => {});
    throw error;
  }
  if (applied.length) log.info({ migrations: applied }, 'migrations applied');
  return storage;
}

/**
 * Kysely's migrator looks at the tables of every schema it can see, by name; a schema that
 * another deployment (or test server) drops at that moment fails the look-up with 3F000
 * (invalid_schema_name). The migrations did not start, so trying again is safe.
 */
async function migrateRetryingDroppedSchemas(storage: Storage): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrate(storage);
    } catch (error) {
      if ((error as { code?: string }).code !== '3F000' || attempt >= 5) throw error;
    }
  }
}

function serverKey(config: Config): Buffer {
  if (!config.secretKey && !config.secretKeyFile) {
    if (config.seed !== null) return seedKey(config.seed, 'server key');
    // Nothing is written with DATA_DIR=:memory:, the key included: it lives as long as the process.
    if (config.dataDir === inMemory) return randomBytes(32);
  }
  const file = serverKeyFile(config.secretKeyFile, config.dataDir);
  const where = config.secretKeyFile ? `SECRET_KEY_FILE ${file}` : `DATA_DIR ${config.dataDir}`;
  let key: Buffer;
  try {
    key = loadServerKey(config.secretKey, config.dataDir, config.secretKeyFile);
  } catch (error) {
    throw new ConfigError(`${where}: cannot read or create the server key ${file}: ${(error as Error).message}`);
  }
  if (key.length < 32)
    throw new ConfigError(
      `${where}: the server key ${file} is damaged (64 hex digits expected); restore it, or set SECRET_KEY`,
    );
  return key;
}

/**
 * Connects to Redis: the client at once, and `ready` once it answers or after 5 s. Start-up
 * begins this first and waits for `ready` only before it listens, so the handshake overlaps
 * opening storage and building the routes; the first requests already count in the shared budget.
 */
async function connectRedis(url: string, log: Logger): Promise<{ redis: Redis; ready: Promise<void> }> {
  // Loaded only when REDIS_URL is set.
  const { Redis } = await import('ioredis');
  // A request's rate-limit counts and actor check are one command (platform/redis-round.ts);
  // auto-pipelining still puts the commands of one tick (several requests', a bump) in one write.
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
    enableAutoPipelining: true,
  });
  redis.on('error', (error) => log.warn({ err: error.message }, 'redis unavailable; rate limits fall back to memory'));
  const timeout = AbortSignal.timeout(5_000);
  const ready = once(redis, 'ready', { signal: timeout }).then(
    () => {},
    () => log.warn({ redis: redactUrl(url) }, 'redis not ready after 5 s; rate limits count in memory until it is'),
  );
  return { redis, ready };
}

/** `catalog` lets the caller load (and so check) the catalog before storage is opened. */
export async function createPlatform(
  config: Config,
  storage: Storage,
  log: Logger,
  catalog?: Catalog,
): Promise<Platform> {
  let clock: Clock = new SystemClock();
  if (config.clock === 'virtual') {
    const saved = await settingsRepository.get(storage.db, 'clock_offset_ms');
    clock = new VirtualClock(
      saved ? Number(saved) : 0,
      async () => {
        const value = await settingsRepository.get(storage.db, 'clock_offset_ms');
        return value === undefined ? undefined : Number(value);
      },
      config.seed === null ? undefined : seededClockStart(config.seed),
    );
  }
  const random = config.seed === null ? cryptoRandom : seededRandom(config.seed);
  return {
    config,
    db: storage.db,
    dialect: storage.dialect,
    clock,
    secrets: createSecrets(serverKey(config), config.passwordHashCost, config.passwordHashConcurrency, random),
    random,
    // What the engine can boot, then the features the deployment offers.
    catalog: withOfferedFeatures(
      catalogForEngine(
        catalog ? { ...catalog, loadedAt: clock.now() } : loadCatalog(config.catalogFile, clock.now()),
        config.computeDriver,
      ),
      config.computeDriver,
    ),
    mailTransport: config.smtpUrl ? await smtpTransport(config.smtpUrl) : null,
    reverseDns: reverseDnsServer(config),
    compute: await createComputeDriver(config),
    // SQLite: this process owns the database, so it may cache actors on its own; PostgreSQL only
    // once Redis shares the generations between instances (startInstance).
    actors: new ActorCache(storage.dialect === 'sqlite'),
    log,
    metrics: createMetrics(),
  };
}

/**
 * Listens without Fastify's own line per address it listens on (several with HOST=0.0.0.0): the
 * instance logs one line once it serves, with what it runs on.
 */
async function listenQuietly(app: FastifyInstance, options: { port: number; host: string }): Promise<string> {
  const log = app.log;
  app.log = log.child({}, { level: 'warn' });
  try {
    return await listenOn(app, options);
  } finally {
    app.log = log;
  }
}

export async function startInstance(
  given: Config,
  options: {
    sweeps?: boolean;
    logDestination?: LogDestination;
    /** `nubis serve`: with no ADMIN_TOKEN, use DATA_DIR/admin-token, made on an empty database. */
    firstRunOperatorToken?: boolean;
    /** Where the server's code came from (prebuilt or sources), for the listening line. */
    code?: string;
  } = {},
): Promise<RunningInstance> {
  let config = given;
  const log = createLogger(config.logLevel, options.logDestination);
  // A bad catalog stops start-up before storage is touched.
  const catalog = loadCatalog(config.catalogFile, 0);
  const connectingRedis = config.redisUrl ? connectRedis(config.redisUrl, log) : null;
  // Start-up failing before Redis is in use: its connection must not keep the process alive.
  const dropRedis = () =>
    void connectingRedis?.then(
      ({ redis }) => redis.disconnect(),
      () => {},
    );
  let storage: Storage;
  try {
    storage = await prepareStorage(config, log);
  } catch (error) {
    dropRedis();
    throw error;
  }
  let operatorToken: OperatorTokenFile | null = null;
  if (options.firstRunOperatorToken && config.mode === 'server' && !config.adminToken && config.dataDir !== inMemory) {
    try {
      operatorToken = firstRunOperatorToken(config.dataDir, await accountRepository.none(storage.db));
    } catch (error) {
      dropRedis();
      await storage.close().catch(() => {});
      throw new ConfigError(`DATA_DIR ${config.dataDir}: the operator token file: ${(error as Error).message}`);
    }
    if (operatorToken && operatorToken.token.length < 16) {
      dropRedis();
      await storage.close().catch(() => {});
      throw new ConfigError(
        `${operatorToken.file}: the operator token is shorter than 16 characters; delete the file or set ADMIN_TOKEN`,
      );
    }
    if (operatorToken) {
      config = { ...config, adminToken: operatorToken.token };
      log.info(
        { file: operatorToken.file, created: operatorToken.created },
        'the operator API uses the token in the file',
      );
    }
  }
  const ctx = await createPlatform(config, storage, log, catalog).catch(async (error) => {
    dropRedis();
    await storage.close().catch(() => {});
    throw error;
  });
  const connected = await connectingRedis;
  const redis = connected?.redis ?? null;
  // A seeded instance starts from the seed's beginning, whatever the storage held.
  const seeded = ctx.random.seeded
    ? await resetState(ctx)
    : config.mode === 'emulator'
      ? await seedEmulatorAccount(ctx)
      : null;
  registerStateMetrics(ctx, storage.poolStats);
  // What a region no longer offers is not billed on, from before the first request.
  await settleWithdrawnOptions(ctx);
  const round = redis && redisRound(redis);
  if (redis && round && ctx.actors instanceof ActorCache) {
    ctx.actors.share(redisGenerations(redis, round, config.redisPrefix));
    // Generations may have been lost with Redis (it keeps nothing on disk): start over when it is back.
    redis.on('ready', () => ctx.actors.clear());
  }
  const limiters = createRateLimiters(
    config,
    redis && round && { round, ready: () => redis.status === 'ready' },
    (name) => ctx.metrics.rateLimitRefusals.inc({ limit: name }),
  );
  const lifecycle = createLifecycle();
  const app = await buildApp({
    ctx,
    apis: servedApis,
    storage,
    limiters,
    version: packageVersion,
    logger: log,
    lifecycle,
  });
  await connected?.ready;
  let address: string;
  try {
    address = await listenQuietly(app, { port: config.port, host: config.host });
  } catch (error) {
    await Promise.allSettled([app.close(), storage.close()]);
    redis?.disconnect();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      throw new ConfigError(`PORT ${config.port} / HOST ${config.host}: cannot listen: ${(error as Error).message}`);
    }
    throw error;
  }
  let metricsListener: Awaited<ReturnType<typeof startMetricsListener>>;
  try {
    metricsListener = await startMetricsListener(ctx);
  } catch (error) {
    await Promise.allSettled([app.close(), storage.close()]);
    redis?.disconnect();
    throw new ConfigError(
      `METRICS_PORT ${config.metricsPort} / METRICS_HOST ${config.metricsHost}: cannot listen: ${(error as Error).message}`,
    );
  }
  // The one line that says the instance serves: scripts and tests wait for "listening at <url>",
  // so it is written at any LOG_LEVEL but silent (a child's level is its own).
  log.child({}, { level: config.logLevel === 'silent' ? 'silent' : 'info' }).info(
    {
      url: address,
      storage: ctx.dialect,
      clock: ctx.clock.mode,
      ...(options.code ? { code: options.code } : {}),
      ...(metricsListener ? { metrics: `${metricsListener.url}/metrics` } : {}),
    },
    `Server listening at ${address}`,
  );
  const sweeper = (options.sweeps ?? config.sweeps) ? startSweeper(ctx, config.sweepIntervalSeconds * 1000) : null;
  // A real compute driver's jobs run on every instance (a no-op with the simulated driver).
  const jobs = startJobRunner(ctx);

  let closing: Promise<void> | null = null;
  return {
    app,
    ctx,
    url: address,
    metricsUrl: metricsListener?.url ?? null,
    seeded,
    operatorToken: operatorToken && { file: operatorToken.file, created: operatorToken.created },
    close(graceMs = 0) {
      closing ??= (async () => {
        lifecycle.stopping = true;
        if (graceMs > 0) {
          log.info({ graceMs }, 'shutting down: /readyz answers 503, requests are served for the grace period');
          await new Promise((resolve) => setTimeout(resolve, graceMs));
        }
        // Requests already received (some still in the socket buffers) are answered for real.
        await settleReceived(lifecycle.connections);
        lifecycle.draining = true;
        // No new connection from here on (a balancer has had the grace period to stop sending).
        stopAccepting(app);
        log.info('draining: what arrived is taken in; new connections and requests are refused');
        const [drained] = await Promise.all([
          drainHttp(app, config.shutdownTimeoutMs),
          sweeper?.stop(),
          metricsListener?.close(),
        ]);
        // In-flight requests may still hand work to the compute jobs: stop them once drained.
        await jobs.stop();
        if (drained) log.info('in-flight requests finished');
        else log.warn({ deadlineMs: config.shutdownTimeoutMs }, 'shutdown deadline reached: open connections cut');
        await Promise.all([settleMailDeliveries(ctx), settlePtrPublishing(ctx)]);
        ctx.mailTransport?.close();
        redis?.disconnect();
        await storage.close();
      })();
      return closing;
    },
  };
}
