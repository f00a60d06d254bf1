// How the benches run a `nubis serve` of their own: the environment (as `npm start` runs it, with
// budgets no load trips) and a catalog whose pool holds the servers they create.

import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/** A catalog with a pool large enough for the create benchmark (CGNAT space, bench only), written in `dir`. */
export function benchCatalog(dir: string): string {
  const catalog = JSON.parse(readFileSync(join(root, 'src/catalog/catalog.json'), 'utf8'));
  for (const region of catalog.regions) if (region.id === 101) region.pools.v4 = ['100.64.0.0/10'];
  const file = join(dir, 'bench-catalog.json');
  writeFileSync(file, JSON.stringify(catalog));
  return file;
}

/** The environment of a bench's Nubis in `dataDir`, on PostgreSQL + Redis when `databaseUrl` is given. */
export function serveEnv(dataDir: string, adminToken: string, databaseUrl?: string): Record<string, string> {
  return {
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    AUTO_ACTIVATE: 'true',
    DATABASE_URL: databaseUrl ?? '',
    REDIS_URL: databaseUrl ? 'redis://127.0.0.1:6379' : '',
    REDIS_PREFIX: `nubis-bench-${randomBytes(4).toString('hex')}:`,
    CATALOG_FILE: benchCatalog(dataDir),
    SERVERS_LIMIT: '1000000',
    SWEEPS: 'false',
    PASSWORD_HASH_COST: '12',
    RATE_TOKEN_PER_SECOND: '100000000',
    RATE_ACCOUNT_INFO_PER_MINUTE: '100000000',
    RATE_REGISTER_PER_MINUTE: '1000000',
    RATE_LOGIN_PER_MINUTE: '1000000',
    SECRET_KEY: randomBytes(32).toString('hex'),
    // As `npm start` runs it (package.json): the compile cache on before Node reads bin/nubis.ts,
    // and fewer malloc arenas.
    MALLOC_ARENA_MAX: '2',
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'node-compile-cache'),
  };
}

/** One JSON call to a bench's Nubis at `url`: its status, body and Server-Timing header. */
export async function benchCall(url: string, method: string, path: string, token: string | null, body?: unknown) {
  const response = await fetch(url + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  return {
    status: response.status,
    // biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON, read field by field
    body: (await response.json()) as any,
    timing: response.headers.get('server-timing'),
  };
}
