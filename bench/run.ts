// `npm run bench`: starts Nubis and a bare Fastify baseline as separate processes and loads
// them side by side with autocannon, reporting requests/s, p99 and the ratio to the baseline;
// plus cold start, server/create throughput, server/list server time and memory.
// Options: --duration S (per scenario, default 8), --connections N (default 50),
//          --db sqlite|postgres (default sqlite), --instances N (default 1: with 2, the reads run
//          against one instance and then against both, side by side), --servers N (list size,
//          default 1000), --stored N (servers seeded in other accounts first, default 0),
//          --lxd (the real driver's scenario alone: bench/lxd.ts)

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { seed } from './seed.ts';

// --lxd: the real compute driver's scenario instead (bench/lxd.ts: create → SSH, creates a minute).
if (process.argv.includes('--lxd')) {
  await import('./lxd.ts');
  process.exit(0);
}

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '50' },
    db: { type: 'string', default: 'sqlite' },
    instances: { type: 'string', default: '1' },
    servers: { type: 'string', default: '1000' },
    stored: { type: 'string', default: '0' },
  },
});
const duration = Number(args.duration);
const connections = Number(args.connections);
const listSize = Number(args.servers);
const adminToken = 'bench-admin-token-0123456789';
const root = new URL('..', import.meta.url).pathname;

interface Started {
  url: string;
  child: ChildProcess;
  startMs: number;
}

function startProcess(script: string[], env: Record<string, string>): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(process.execPath, script, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        child.stdout!.off('data', onData);
        child.stderr!.off('data', onData);
        resolve({ url: match[1]!, child, startMs: performance.now() - t0 });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${script.join(' ')} exited ${code}: ${output.slice(-2000)}`)));
  });
}

async function firstAnswer(url: string, t0: number): Promise<number> {
  for (;;) {
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return performance.now() - t0;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function call(url: string, method: string, path: string, token: string | null, body?: unknown) {
  const response = await fetch(url + path, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
}

/** Server time (Server-Timing) of sequential calls: the cost of the request without network or queueing. */
async function serverTime(base: string, path: string, token: string): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < 50; i++) {
    const response = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
    await response.arrayBuffer();
    const timing = /dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '');
    if (timing) samples.push(Number(timing[1]));
  }
  samples.sort((a, b) => a - b);
  return {
    p50: samples[Math.floor(samples.length / 2)] ?? NaN,
    p99: samples[Math.floor(samples.length * 0.99)] ?? NaN,
  };
}

interface Row {
  scenario: string;
  rps: number;
  p99: number;
  p50: number;
  errors: number;
  note?: string;
}

async function load(
  name: string,
  urls: string[],
  opts: { method?: string; path: string; token?: string; tokens?: string[]; body?: unknown; connections?: number },
): Promise<Row> {
  let nextToken = 0;
  // With several tokens, each connection acts for its own account (as many clients do).
  const setupClient = opts.tokens
    ? (client: { setHeaders(headers: Record<string, string>): void }) => {
        const token = opts.tokens![nextToken++ % opts.tokens!.length];
        client.setHeaders({
          authorization: `Bearer ${token}`,
          ...(opts.body ? { 'content-type': 'application/json' } : {}),
        });
      }
    : undefined;
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({
        setupClient,
        url: url + opts.path,
        method: (opts.method ?? 'GET') as 'GET',
        connections: Math.max(1, Math.round((opts.connections ?? connections) / urls.length)),
        duration,
        headers: {
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
          ...(opts.body ? { 'content-type': 'application/json' } : {}),
        },
        body: opts.body ? JSON.stringify(opts.body) : undefined,
      }),
    ),
  );
  const rps = results.reduce((sum, r) => sum + r.requests.average, 0);
  const p99 = Math.max(...results.map((r) => r.latency.p99));
  const p50 = Math.max(...results.map((r) => r.latency.p50));
  const errors = results.reduce((sum, r) => sum + r.errors + r.non2xx, 0);
  return { scenario: name, rps: Math.round(rps), p99, p50, errors };
}

async function postgresUrl(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop schema ${schema} cascade`);
      await c.end();
    },
  };
}

/** A catalog with a pool large enough for the create benchmark (CGNAT space, bench only). */
function benchCatalog(dir: string): string {
  const catalog = JSON.parse(readFileSync(join(root, 'src/catalog/catalog.json'), 'utf8'));
  for (const region of catalog.regions) if (region.id === 101) region.pools.v4 = ['100.64.0.0/10'];
  const file = join(dir, 'bench-catalog.json');
  writeFileSync(file, JSON.stringify(catalog));
  return file;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nubis-bench-'));
  const database = args.db === 'postgres' ? await postgresUrl() : null;
  const instances = Number(args.instances);
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'warn',
    AUTO_ACTIVATE: 'true',
    DATABASE_URL: database?.url ?? '',
    REDIS_URL: database ? 'redis://127.0.0.1:6379' : '',
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
  };
  mkdirSync(join(root, '.bench'), { recursive: true });
  const stored = Number(args.stored);
  let seedSeconds = 0;
  if (stored > 0) {
    const t = performance.now();
    await seed(loadConfig(env), stored);
    seedSeconds = (performance.now() - t) / 1000;
  }

  const bare = await startProcess(['bench/bare-server.ts'], {});
  const t0 = performance.now();
  const first = await startProcess(['--max-semi-space-size=4', 'bin/nubis.ts', 'serve'], env);
  const coldStartMs = await firstAnswer(first.url, t0);
  const nubis = [first];
  for (let i = 1; i < instances; i++)
    nubis.push(await startProcess(['--max-semi-space-size=4', 'bin/nubis.ts', 'serve'], env));
  const urls = nubis.map((n) => n.url);
  const url = urls[0]!;

  const registered = await call(url, 'POST', '/v1.3/account/register', null, {
    email: `bench-${Date.now()}@example.com`,
    password: 'bench-password',
    firstname: 'Bench',
    lastname: 'Mark',
    accept_tos: true,
    country: 'NL',
  });
  const token = registered.body.token as string;
  const info = await call(url, 'GET', '/v1.3/account/info', token);
  await call(url, 'POST', `/admin/accounts/${info.body.id}/credit`, adminToken, { amount: 1_000_000 });

  const rows: Row[] = [];
  const baseline = await load('bare Fastify GET /bare', [bare.url], { path: '/bare' });
  rows.push(baseline);
  const readSets = instances > 1 ? [[url], urls] : [urls];
  for (const set of readSets) {
    const suffix = instances > 1 ? ` [${set.length} instance${set.length > 1 ? 's' : ''}]` : '';
    rows.push(await load(`GET /v1.3/account/info${suffix}`, set, { path: '/v1.3/account/info', token }));
    rows.push(await load(`GET /v1.3/region/list${suffix}`, set, { path: '/v1.3/region/list' }));
  }

  const serverBody = { hostname: 'bench.example.com', label: 'bench', region: 101, image: 1001, plan: 1 };
  const probe = await call(url, 'POST', '/v1.3/server/create', token, serverBody);
  let listTiming: { p50: number; p99: number; count: number } | null = null;
  if (probe.status === 201) {
    // A separate account for the list, so the create load does not change its size.
    const lister = await call(url, 'POST', '/v1.3/account/register', null, {
      email: `bench-list-${Date.now()}@example.com`,
      password: 'bench-password',
      firstname: 'Bench',
      lastname: 'List',
      accept_tos: true,
      country: 'NL',
    });
    const listerInfo = await call(url, 'GET', '/v1.3/account/info', lister.body.token);
    await call(url, 'POST', `/admin/accounts/${listerInfo.body.id}/credit`, adminToken, { amount: 1_000_000 });
    for (let i = 0; i < listSize; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, listSize - i) }, () =>
          call(url, 'POST', '/v1.3/server/create', lister.body.token, serverBody),
        ),
      );
    }
    const creators: string[] = [];
    for (let i = 0; i < 20; i++) {
      const creator = await call(url, 'POST', '/v1.3/account/register', null, {
        email: `bench-create-${i}-${Date.now()}@example.com`,
        password: 'bench-password',
        firstname: 'Bench',
        lastname: 'Create',
        accept_tos: true,
        country: 'NL',
      });
      const creatorInfo = await call(url, 'GET', '/v1.3/account/info', creator.body.token);
      await call(url, 'POST', `/admin/accounts/${creatorInfo.body.id}/credit`, adminToken, { amount: 1_000_000 });
      creators.push(creator.body.token);
    }
    const createRow = await load('POST /v1.3/server/create (20 connections, one account each)', urls, {
      method: 'POST',
      path: '/v1.3/server/create',
      tokens: creators,
      body: serverBody,
      connections: 20,
    });
    rows.push(createRow);
    const list = await load(`GET /v1.3/server/list (${listSize} servers)`, urls, {
      path: '/v1.3/server/list',
      token: lister.body.token,
      connections: 4,
    });
    rows.push(list);
    // Server time of one list, sequentially, from the Server-Timing header.
    const samples: number[] = [];
    for (let i = 0; i < 50; i++) {
      const response = await fetch(`${url}/v1.3/server/list`, {
        headers: { authorization: `Bearer ${lister.body.token}` },
      });
      const body = (await response.json()) as { servers: unknown[] };
      const timing = /dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '');
      if (timing) samples.push(Number(timing[1]));
      if (i === 0 && body.servers.length !== listSize)
        throw new Error(`expected ${listSize} servers, listed ${body.servers.length}`);
    }
    samples.sort((a, b) => a - b);
    listTiming = {
      p50: samples[Math.floor(samples.length / 2)] ?? NaN,
      p99: samples[Math.floor(samples.length * 0.99)] ?? NaN,
      count: samples.length,
    };
  }

  const memoryMb =
    Number(readFileSync(`/proc/${first.child.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;

  console.log(
    `\nNubis benchmark — db=${args.db}, instances=${instances}, ${connections} connections, ${duration}s per scenario, node ${process.version}${stored ? `, ${stored} servers seeded in other accounts (${seedSeconds.toFixed(1)} s)` : ''}\n`,
  );
  console.log('| scenario | requests/s | ratio to bare | p50 ms | p99 ms | errors/non-2xx |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const row of rows)
    console.log(
      `| ${row.scenario} | ${row.rps} | ${(row.rps / baseline.rps).toFixed(2)} | ${row.p50} | ${row.p99} | ${row.errors} |`,
    );
  console.log(`\ncold start to first answer: ${coldStartMs.toFixed(0)} ms`);
  if (listTiming)
    console.log(
      `server/list of ${listSize} servers, server time (Server-Timing) over ${listTiming.count} sequential calls: p50 ${listTiming.p50.toFixed(2)} ms, p99 ${listTiming.p99.toFixed(2)} ms`,
    );
  else console.log('server/create is not served yet: create and list scenarios skipped');
  console.log(`resident memory of instance 1 after the run: ${memoryMb.toFixed(0)} MB`);
  const infoTiming = await serverTime(url, '/v1.3/account/info', token);
  console.log(
    `account/info server time over 50 sequential calls: p50 ${infoTiming.p50.toFixed(2)} ms, p99 ${infoTiming.p99.toFixed(2)} ms`,
  );
  writeFileSync(
    join(root, '.bench/results.json'),
    JSON.stringify(
      { db: args.db, instances, stored, connections, duration, rows, coldStartMs, listTiming, infoTiming, memoryMb },
      null,
      2,
    ),
  );

  bare.child.kill('SIGTERM');
  for (const n of nubis) n.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  await database?.drop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
