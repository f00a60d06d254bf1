// Runs real `nubis serve` processes (and `nubis sweep --once`) against one PostgreSQL schema
// and one Redis, the way an operator runs several instances behind a load balancer.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { JsonBody } from '../support/instance.ts';
import { throwawaySchema } from '../support/postgres-schema.ts';
import { servingProcess } from '../../scripts/serving-process.ts';

const root = new URL('../../', import.meta.url).pathname;
export const ADMIN_TOKEN = 'scale-out-admin-token-0123456789';
export const adminDatabaseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface Instance {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<number | null>;
}

export interface Deployment {
  /** Environment every process of the deployment shares (database, Redis, keys). */
  env: Record<string, string>;
  start(extra?: Record<string, string>): Promise<Instance>;
  /** Runs `nubis sweep --once` to completion; resolves with its exit code. */
  sweepOnce(): Promise<number | null>;
  close(): Promise<void>;
}

async function adminQuery(sql: string, url = adminDatabaseUrl): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A deployment in its own schema (or, with `database`, its own database, so a test may refuse
 * it connections without touching anything else).
 */
export async function deployment(
  options: { database?: string; env?: Record<string, string> } = {},
): Promise<Deployment> {
  const id = randomBytes(4).toString('hex');
  let url = new URL(adminDatabaseUrl);
  let drop: () => Promise<void>;
  if (options.database) {
    await adminQuery(`drop database if exists ${options.database}`);
    await adminQuery(`create database ${options.database}`);
    url.pathname = `/${options.database}`;
    drop = async () => {
      await adminQuery(`alter database ${options.database} allow_connections true`).catch(() => {});
      await adminQuery(`drop database if exists ${options.database} with (force)`);
    };
  } else {
    const schema = await throwawaySchema(adminDatabaseUrl, `scale_${id}`);
    url = new URL(schema.url);
    drop = schema.drop;
  }
  url.searchParams.set('application_name', `nubis-scale-${id}`);
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: url.toString(),
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `nubis-scale-${id}:`,
    SECRET_KEY: randomBytes(32).toString('hex'),
    ADMIN_TOKEN,
    LOG_LEVEL: 'warn',
    AUTO_ACTIVATE: 'true',
    PASSWORD_HASH_COST: '12',
    SWEEPS: 'false',
    // Stopped by SIGTERM between tests: no load balancer to wait for.
    SHUTDOWN_GRACE_SECONDS: '0',
    SIM_PROVISION_SECONDS: '1',
    SIM_BOOT_SECONDS: '1',
    SIM_STOP_SECONDS: '1',
    RATE_TOKEN_PER_SECOND: '100000',
    RATE_REGISTER_PER_MINUTE: '100000',
    RATE_LOGIN_PER_MINUTE: '100000',
    ...options.env,
  };
  const running: Instance[] = [];

  // Each instance as `npm start` runs one.
  const serving = servingProcess();
  async function start(extra: Record<string, string> = {}): Promise<Instance> {
    const dataDir = mkdtempSync(join(tmpdir(), 'nubis-scale-'));
    const child = spawn(process.execPath, [...serving.flags, 'bin/nubis.ts', 'serve'], {
      cwd: root,
      env: { ...process.env, ...serving.env, ...env, DATA_DIR: dataDir, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`instance did not start in 30 s:\n${output}`)), 30_000);
      const check = () => {
        const match = /listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      child.stdout!.on('data', check);
      child.stderr!.on('data', check);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`instance exited ${code} before listening:\n${output}`));
      });
    });
    const instance: Instance = {
      url,
      child,
      output: () => output,
      stop: () =>
        new Promise((resolve) => {
          if (child.exitCode !== null) return resolve(child.exitCode);
          child.once('exit', (code) => resolve(code));
          child.kill('SIGTERM');
        }),
    };
    running.push(instance);
    return instance;
  }

  return {
    env,
    start,
    sweepOnce: () =>
      new Promise((resolve) => {
        const dataDir = mkdtempSync(join(tmpdir(), 'nubis-sweep-'));
        const child = spawn(process.execPath, ['bin/nubis.ts', 'sweep', '--once'], {
          cwd: root,
          env: { ...process.env, ...env, DATA_DIR: dataDir },
          stdio: 'ignore',
        });
        child.once('exit', (code) => resolve(code));
      }),
    async close() {
      await Promise.all(running.map((instance) => instance.stop()));
      await drop();
    },
  };
}

export interface Answer<T = JsonBody> {
  status: number;
  body: T;
  headers: Headers;
}

export async function call<T = JsonBody>(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<Answer<T>> {
  const response = await fetch(base + path, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as T, headers: response.headers };
}

/** Registers an (auto-activated) account through an instance, credits it, and answers its token and id. */
export async function fundedAccount(
  base: string,
  credit: number | string,
): Promise<{ token: string; id: number; email: string }> {
  const email = `scale-${randomBytes(5).toString('hex')}@example.com`;
  const registered = await call(base, 'POST', '/v1.3/account/register', {
    body: {
      email,
      password: 'scale-out password',
      firstname: 'Scale',
      lastname: 'Out',
      accept_tos: true,
      country: 'NL',
    },
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${JSON.stringify(registered.body)}`);
  const info = await call(base, 'GET', '/v1.3/account/info', { token: registered.body.token });
  if (Number(credit) !== 0) {
    const credited = await call(base, 'POST', `/admin/accounts/${info.body.id}/credit`, {
      token: ADMIN_TOKEN,
      body: { amount: credit },
    });
    if (credited.status !== 201) throw new Error(`credit: ${credited.status} ${JSON.stringify(credited.body)}`);
  }
  return { token: registered.body.token, id: info.body.id, email };
}

export { adminQuery };
