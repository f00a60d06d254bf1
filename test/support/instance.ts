// Starts a real Nubis instance on a free port for a test file, on the database the run asks for
// (TEST_DB=sqlite or postgres), and gives an HTTP client for it. Black-box: tests speak HTTP only.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { throwawaySchema, type ThrowawaySchema } from './postgres-schema.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { startInstance, type RunningInstance } from '../../src/instance.ts';
import { openStorage, type Storage } from '../../src/db/connect.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export type TestDb = 'sqlite' | 'postgres';
export const testDb: TestDb = process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/**
 * A JSON answer's body as tests read it: any shape, asserted field by field. The one
 * deliberate `any` of the test harness; typed results pass their own `T`.
 */
// biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON read by assertions
export type JsonBody = any;

export interface HttpResult<T = JsonBody> {
  status: number;
  body: T;
  headers: Headers;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** Form fields for the legacy API (sent as application/x-www-form-urlencoded). */
  form?: Record<string, string | number | boolean>;
  headers?: Record<string, string>;
  rawBody?: string;
}

export interface TestInstance {
  url: string;
  config: Config;
  request<T = JsonBody>(method: string, path: string, options?: RequestOptions): Promise<HttpResult<T>>;
  admin<T = JsonBody>(method: string, path: string, body?: unknown): Promise<HttpResult<T>>;
  /** Moves the virtual clock forward. */
  advance(seconds: number): Promise<void>;
  close(): Promise<void>;
  running: RunningInstance;
  /** With `captureLog`: the instance's log lines at error level or above (pino level ≥ 50), parsed. */
  errorLog(): Record<string, unknown>[];
}

export interface TestInstanceOptions {
  /** The database to run on (the run's TEST_DB when absent). */
  db?: TestDb;
  /** Keep the instance's log (at info level) in memory instead of discarding it, for `errorLog()`. */
  captureLog?: boolean;
  /** The assembly to start (the prebuilt server's, say): the sources' `startInstance` when absent. */
  startInstance?: typeof startInstance;
}

/** A schema of the test database for one instance (TEST_DATABASE_URL, else the local `test`). */
function postgresSchema(): Promise<ThrowawaySchema> {
  const base = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  return throwawaySchema(base, `t_${process.pid}_${randomBytes(4).toString('hex')}`);
}

/**
 * Storage for a process a test spawns itself (the CLI): a fresh DATA_DIR, and on the
 * PostgreSQL run a fresh schema in DATABASE_URL. `open` opens it in this process as the server
 * does, with a pool of `poolSize` connections; `cleanup` removes both.
 */
export async function testStorageEnv(): Promise<{
  env: Record<string, string>;
  open(poolSize: number): Promise<Storage>;
  cleanup(): Promise<void>;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nubis-cli-'));
  const pgSchema = testDb === 'postgres' ? await postgresSchema() : null;
  return {
    env: { DATA_DIR: dataDir, ...(pgSchema ? { DATABASE_URL: pgSchema.url } : {}) },
    open: (poolSize) =>
      openStorage({
        databaseUrl: pgSchema?.url ?? '',
        dataDir,
        dbPoolSize: poolSize,
        dbStatementTimeoutMs: 30_000,
        dbConnectRetries: 0,
      }),
    async cleanup() {
      await pgSchema?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Instances being started at once, once all have started. When one fails, the others are closed
 * before its error is thrown: left running, they would keep the test file's process alive for
 * ever (a before hook has no time limit), and the whole run with it.
 */
export async function startedTogether(starting: readonly Promise<TestInstance>[]): Promise<TestInstance[]> {
  const settled = await Promise.allSettled(starting);
  const failure = settled.find((outcome) => outcome.status === 'rejected');
  if (!failure) return settled.map((outcome) => (outcome as PromiseFulfilledResult<TestInstance>).value);
  await Promise.allSettled(settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.close() : null)));
  throw failure.reason;
}

/** Starts a Nubis instance with test defaults; `env` overrides environment variables, as an operator would. */
export async function startTestInstance(
  env: Record<string, string> = {},
  options: TestInstanceOptions = {},
): Promise<TestInstance> {
  const db = options.db ?? testDb;
  const dataDir = mkdtempSync(join(tmpdir(), 'nubis-test-'));
  const pgSchema = db === 'postgres' ? await postgresSchema() : null;
  const redisUrl = db === 'postgres' ? (process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379') : '';
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: pgSchema?.url ?? '',
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `nubis-test:${randomBytes(6).toString('hex')}:`,
    ADMIN_TOKEN,
    CLOCK: 'virtual',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // The least cost the configuration takes (as @nubis/testing's): a test registers and logs in
    // thousands of times, and at 12 scrypt took 7 ms of CPU each, at 10 under 2.
    PASSWORD_HASH_COST: '10',
    SWEEPS: 'false',
    // The test and the server share one event loop. After a long synchronous stretch (rows stored
    // straight into SQLite), fetch reused its pooled connection in the same turn and the server's
    // keep-alive timer, overdue, then closed it: ECONNRESET under load. Idle connections outlive a test.
    KEEP_ALIVE_TIMEOUT_MS: '600000',
    // Generous budgets so suites that register many accounts from one address do not trip them;
    // the rate-limit tests set their own.
    RATE_REGISTER_PER_MINUTE: '100000',
    RATE_LOGIN_PER_MINUTE: '100000',
    RATE_LOGIN_PER_ADDRESS_PER_MINUTE: '100000',
    PASSWORD_HASH_CONCURRENCY: '10000',
    RATE_ACTIVATE_PER_MINUTE: '100000',
    RATE_RESET_PER_MINUTE: '100000',
    RATE_ACCOUNT_INFO_PER_MINUTE: '100000',
    RATE_ACCOUNT_UPDATE_PER_MINUTE: '100000',
    RATE_TOKEN_PER_SECOND: '100000',
    ...(options.captureLog ? { LOG_LEVEL: 'info' } : {}),
    ...env,
  });
  const errors: Record<string, unknown>[] = [];
  const logDestination = options.captureLog
    ? {
        write(line: string) {
          const entry = JSON.parse(line) as Record<string, unknown>;
          if (Number(entry.level) >= 50) errors.push(entry);
        },
      }
    : undefined;
  let running: RunningInstance;
  try {
    running = await (options.startInstance ?? startInstance)(config, { logDestination });
  } catch (error) {
    // An instance that refuses to start (a test of bad configuration) leaves nothing behind.
    await pgSchema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const url = running.url;

  async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.form) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
      body = new URLSearchParams(Object.entries(options.form).map(([k, v]) => [k, String(v)])).toString();
    } else if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await fetch(url + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = text;
    }
    return { status: response.status, body: parsed as T, headers: response.headers };
  }

  return {
    url,
    config,
    running,
    request,
    admin: (method, path, body) => request(method, path, { token: ADMIN_TOKEN, body }),
    errorLog: () => [...errors],
    async advance(seconds) {
      const result = await request('POST', '/admin/clock/advance', { token: ADMIN_TOKEN, body: { seconds } });
      if (result.status !== 200)
        throw new Error(`clock advance failed: ${result.status} ${JSON.stringify(result.body)}`);
    },
    async close() {
      await running.close();
      await pgSchema?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
