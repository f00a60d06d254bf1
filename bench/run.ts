// `npm run bench`: starts Nubis, a bare Fastify baseline and the floor (bench/floor-server.ts: the
// least work a correct authenticated read does on the same stack and database) as separate
// processes and loads them with autocannon, each read in rounds alternating with the floor:
// requests/s, p99 and server CPU per request, each beside the floor's.
// Without --only it runs every case in one go and writes them all to .bench/results.json:
//   sqlite     the authenticated reads (account/info, server/info, server/list of a handful,
//              floating_ip/list, ssh_key/list), cold start on an existing database, server/create,
//              the server time of a 1,000-server list, resident memory
//   postgres   the same on PostgreSQL + Redis, the reads on one instance and then on two
//   large      SQLite with 1,000,000 servers stored in other accounts and a reader whose history
//              holds 100,000 invoice items (with their events): account/info, server/info and
//              server/activity beside a fresh account's
// Options: --only sqlite|postgres|large (one case), --duration S (per scenario, default 5),
//          --connections N (default 50), --rounds N (of each read beside the floor, default 3), --servers N (list size, default 1000),
//          --stored N (servers seeded for `large`, default 1000000), --history N (default 100000),
//          --lxd or --only lxd (the real driver's scenario alone: bench/lxd.ts; under flock /tmp/nubis-lxd.lock)
//   testing    @nubis/testing's startNubis() and reset() (bench/testing.ts; --only testing alone)
//   fleet      a sweep round and a reconciliation with nothing due at 1,000 and 1,000,000 servers (bench/fleet.ts;
//              --only fleet alone, --fleet N,M for other sizes)
//   list       a 1,000-server server/list alone on SQLite and PostgreSQL + Redis: server time and CPU a list
//              (bench/list.ts; --only list alone, --servers N, --calls N, default 200)
//   cli        the installed `nubis` command: --help and a list call, CPU and wall (bench/cli.ts;
//              --only cli alone, --runs N, default 15; --installed DIR: a project where the packages
//              are installed already, e.g. an older build to compare, instead of packing this one)

import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { prebuiltEntry } from '../src/prebuilt.ts';
import { throwawaySchema, type ThrowawaySchema } from '../test/support/postgres-schema.ts';
import { seed, seedFloor, seedHistory } from './seed.ts';
import { serveEnv } from './serve-env.ts';
import { benchTesting, reportTesting } from './testing.ts';
import { servingProcess } from '../scripts/serving-process.ts';

// --lxd or --only lxd: the real compute driver's scenario instead (bench/lxd.ts: a Debian server's create → SSH
// beside the engine's own launch, nubis-tiny's, creates a minute).
if (process.argv.includes('--lxd') || process.argv.join(' ').includes('--only lxd')) {
  await import('./lxd.ts');
  process.exit(0);
}
// --only fleet: what a sweep round and a reconciliation round cost as the fleet grows, in this process (bench/fleet.ts).
const onlyAt = process.argv.indexOf('--only');
if (onlyAt >= 0 && process.argv[onlyAt + 1] === 'fleet') {
  const sizesAt = process.argv.indexOf('--fleet');
  const sizes = (sizesAt >= 0 ? process.argv[sizesAt + 1]! : '1000,1000000').split(',').map(Number);
  const { benchFleet } = await import('./fleet.ts');
  const rows = await benchFleet(sizes);
  mkdirSync(join(new URL('..', import.meta.url).pathname, '.bench'), { recursive: true });
  writeFileSync(
    join(new URL('..', import.meta.url).pathname, '.bench/fleet.json'),
    JSON.stringify({ at: new Date().toISOString(), load: loadavg(), rows }, null, 2),
  );
  process.exit(0);
}

// --only list: a 1,000-server list on SQLite and on PostgreSQL + Redis, sequential calls (bench/list.ts).
if (onlyAt >= 0 && process.argv[onlyAt + 1] === 'list') {
  const option = (name: string, fallback: number) => {
    const at = process.argv.indexOf(name);
    return at >= 0 ? Number(process.argv[at + 1]) : fallback;
  };
  const { benchList } = await import('./list.ts');
  const figures = await benchList(option('--servers', 1000), option('--calls', 200));
  mkdirSync(join(new URL('..', import.meta.url).pathname, '.bench'), { recursive: true });
  writeFileSync(
    join(new URL('..', import.meta.url).pathname, '.bench/list.json'),
    JSON.stringify({ at: new Date().toISOString(), figures }, null, 2),
  );
  process.exit(0);
}

// --only cli: the packed and installed `nubis` command, in processes of its own (bench/cli.ts).
if (onlyAt >= 0 && process.argv[onlyAt + 1] === 'cli') {
  const runsAt = process.argv.indexOf('--runs');
  const { benchCli, reportCli } = await import('./cli.ts');
  const installedAt = process.argv.indexOf('--installed');
  const figures = await benchCli(
    runsAt >= 0 ? Number(process.argv[runsAt + 1]) : 15,
    installedAt >= 0 ? process.argv[installedAt + 1] : undefined,
  );
  reportCli(figures);
  mkdirSync(join(new URL('..', import.meta.url).pathname, '.bench'), { recursive: true });
  writeFileSync(join(new URL('..', import.meta.url).pathname, '.bench/cli.json'), JSON.stringify(figures, null, 2));
  process.exit(0);
}

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    servers: { type: 'string', default: '1000' },
    stored: { type: 'string', default: '1000000' },
    history: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
  },
});
const duration = Number(args.duration);
const connections = Number(args.connections);
const listSize = Number(args.servers);
const rounds = Math.max(1, Number(args.rounds));
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
        if (child.pid !== undefined) pidOf.set(match[1]!, child.pid);
        resolve({ url: match[1]!, child, startMs: performance.now() - t0 });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${script.join(' ')} exited ${code}: ${output.slice(-2000)}`)));
  });
}

async function firstAnswer(url: string, t0: number, path = '/healthz'): Promise<number> {
  for (;;) {
    try {
      const response = await fetch(url + path);
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

interface Row {
  scenario: string;
  rps: number;
  p99: number;
  p50: number;
  errors: number;
  /**
   * CPU time the serving processes spent per request (µs, from /proc): unlike requests/s it
   * hardly moves with what else runs on the machine, so it compares runs on a busy one.
   */
  cpuUsPerRequest: number;
  /** The floor's figures, measured in rounds alternating with this scenario's (medians). */
  floor?: { rps: number; p99: number; cpuUsPerRequest: number };
  /** This scenario's figure divided by the floor's, the median over the rounds. */
  toFloor?: { cpu: number; rps: number; p99: number };
  rounds?: number;
}

interface Floor {
  url: string;
  token: string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * A read measured beside the floor: `rounds` times the floor and then the read, one after the
 * other, so both see the same machine. Each figure is the median of its rounds; each ratio the
 * median of the rounds' ratios.
 */
async function besideFloor(
  name: string,
  urls: string[],
  opts: { path: string; token: string },
  floor: Floor,
): Promise<Row> {
  const measured: { row: Row; floor: Row }[] = [];
  for (let round = 0; round < rounds; round++) {
    const floorRow = await load('floor', [floor.url], { path: '/floor', token: floor.token });
    measured.push({ floor: floorRow, row: await load(name, urls, opts) });
  }
  const of = (pick: (m: { row: Row; floor: Row }) => number) => median(measured.map(pick));
  return {
    scenario: name,
    rps: Math.round(of((m) => m.row.rps)),
    p99: of((m) => m.row.p99),
    p50: of((m) => m.row.p50),
    errors: measured.reduce((sum, m) => sum + m.row.errors + m.floor.errors, 0),
    cpuUsPerRequest: Math.round(of((m) => m.row.cpuUsPerRequest)),
    floor: {
      rps: Math.round(of((m) => m.floor.rps)),
      p99: of((m) => m.floor.p99),
      cpuUsPerRequest: Math.round(of((m) => m.floor.cpuUsPerRequest)),
    },
    toFloor: {
      cpu: of((m) => m.row.cpuUsPerRequest / m.floor.cpuUsPerRequest),
      rps: of((m) => m.row.rps / m.floor.rps),
      p99: of((m) => m.row.p99 / m.floor.p99),
    },
    rounds,
  };
}

/** The process behind each started URL, for its CPU time. */
const pidOf = new Map<string, number>();

/** CPU time (user + system) of a process so far, in µs (clock ticks of 10 ms). */
function cpuUs(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * Warms a path up (JIT, lazily compiled validators and serializers, caches) before it is measured:
 * a few thousand requests leave a server with more code to optimise still well above its steady cost.
 */
async function warm(url: string, path: string, token: string): Promise<void> {
  await autocannon({ url: url + path, connections: 10, amount: 10_000, headers: { authorization: `Bearer ${token}` } });
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
  if (opts.token && (opts.method ?? 'GET') === 'GET') for (const url of urls) await warm(url, opts.path, opts.token);
  const cpuBefore = urls.reduce((sum, url) => sum + cpuUs(pidOf.get(url)), 0);
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
  const cpu = urls.reduce((sum, url) => sum + cpuUs(pidOf.get(url)), 0) - cpuBefore;
  const requests = results.reduce((sum, r) => sum + r.requests.total, 0);
  return { scenario: name, rps: Math.round(rps), p99, p50, errors, cpuUsPerRequest: Math.round(cpu / requests) };
}

/** A schema of its own in BENCH_DATABASE_URL's database (else the local `test`) for one case. */
function postgresUrl(): Promise<ThrowawaySchema> {
  const base = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  return throwawaySchema(base, `bench_${randomBytes(4).toString('hex')}`);
}

type Case = 'sqlite' | 'postgres' | 'large';

interface CaseResult {
  case: Case;
  db: 'sqlite' | 'postgres';
  instances: number;
  rows: Row[];
  coldStartMs?: number;
  /** A bare Fastify process's start to its first answer, measured in alternation with Nubis's. */
  bareStartMs?: number;
  /** The load average (1, 5, 15 minutes) when the case began and when it ended. */
  load?: { before: number[]; after: number[] };
  createPerSecond?: number;
  listTiming?: { p50: number; p99: number; count: number };
  memoryMb?: number;
  memoryParts?: { binary: number; anonymous: number; files: number };
  seeded?: { servers: number; historyItems: number; seconds: number };
}

const serverBody = { hostname: 'bench.example.com', label: 'bench', region: 101, image: 1001, plan: 1 };

/** An OpenSSH line of a fresh Ed25519 key. */
function sshPublicKey(): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  const part = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  return `ssh-ed25519 ${Buffer.concat([part(Buffer.from('ssh-ed25519')), part(raw)]).toString('base64')} bench`;
}

/** Registers an account with credit; answers its token, id and its first server's uuid once `servers` are made. */
async function benchAccount(url: string, name: string, servers = 0, extras = false) {
  const registered = await call(url, 'POST', '/v1.3/account/register', null, {
    email: `bench-${name}-${Date.now()}-${randomBytes(3).toString('hex')}@example.com`,
    password: 'bench-password',
    firstname: 'Bench',
    lastname: name,
    accept_tos: true,
    country: 'NL',
  });
  const token = registered.body.token as string;
  const info = await call(url, 'GET', '/v1.3/account/info', token);
  await call(url, 'POST', `/admin/accounts/${info.body.id}/credit`, adminToken, { amount: 1_000_000 });
  const uuids: string[] = [];
  for (let i = 0; i < servers; i += 50) {
    const made = await Promise.all(
      Array.from({ length: Math.min(50, servers - i) }, () =>
        call(url, 'POST', '/v1.3/server/create', token, serverBody),
      ),
    );
    for (const answer of made) {
      if (answer.status !== 201)
        throw new Error(`server/create answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      uuids.push(answer.body.uuid);
    }
  }
  if (extras) {
    for (const version of [4, 4, 6])
      await call(url, 'POST', '/v1.3/floating_ip/create', token, { region_id: 101, ip_version: version });
    for (const keyName of ['laptop', 'ci'])
      await call(url, 'POST', '/v1.3/ssh_key/create', token, { name: keyName, public_key: sshPublicKey() });
  }
  return { token, id: info.body.id as number, uuids };
}

/** The authenticated reads of the targets, for one account with a handful of everything. */
function reads(reader: { token: string; uuids: string[] }): { name: string; path: string }[] {
  return [
    { name: 'GET /v1.3/account/info', path: '/v1.3/account/info' },
    { name: 'GET /v1.3/server/info', path: `/v1.3/server/info/${reader.uuids[0]}` },
    { name: `GET /v1.3/server/list (${reader.uuids.length} servers)`, path: '/v1.3/server/list' },
    { name: 'GET /v1.3/floating_ip/list', path: '/v1.3/floating_ip/list' },
    { name: 'GET /v1.3/ssh_key/list', path: '/v1.3/ssh_key/list' },
  ];
}

function residentMb(pid: number | undefined): number {
  return Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) / 1024;
}

/**
 * The resident memory by kind (MB): the node binary's own pages (code and built-in data, shared
 * and clean: only a smaller binary would change them), anonymous memory (the V8 heap, malloc)
 * and other files.
 */
const nodeBinary = realpathSync(process.execPath);
function residentParts(pid: number | undefined): { binary: number; anonymous: number; files: number } {
  const parts = { binary: 0, anonymous: 0, files: 0 };
  let mapping = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) mapping = head[1]!;
    const rss = /^Rss:\s+(\d+)/.exec(line);
    if (!rss) continue;
    const kind = mapping === nodeBinary ? 'binary' : !mapping || mapping.startsWith('[') ? 'anonymous' : 'files';
    parts[kind] += Number(rss[1]) / 1024;
  }
  return parts;
}

async function runCase(which: Case): Promise<CaseResult> {
  const dbName = which === 'postgres' ? 'postgres' : 'sqlite';
  const instances = which === 'postgres' ? 2 : 1;
  const dataDir = mkdtempSync(join(tmpdir(), 'nubis-bench-'));
  const database = dbName === 'postgres' ? await postgresUrl() : null;
  const env = serveEnv(dataDir, adminToken, database?.url);
  const result: CaseResult = { case: which, db: dbName, instances, rows: [] };
  const stored = which === 'large' ? Number(args.stored) : 0;
  const historyItems = which === 'large' ? Number(args.history) : 0;
  const config = loadConfig(env);
  const t = performance.now();
  // The database exists before the timed start: cold start is measured on an existing one.
  if (stored > 0) await seed(config, stored);
  else await runToExit(['bin/nubis.ts', 'migrate'], env);

  result.load = { before: loadavg(), after: [] };
  // Cold start beside a bare Fastify process's (same Node, same compile cache), in alternation;
  // the medians of three each (the first start of each may fill the compile cache).
  const starts = { bare: [] as number[], nubis: [] as number[] };
  const serve = [...servingProcess().flags, 'bin/nubis.ts', 'serve'];
  const cache = { NODE_COMPILE_CACHE: env.NODE_COMPILE_CACHE! };
  for (let i = 0; i < 3; i++) {
    for (const [kind, script, processEnv, path] of [
      ['bare', ['bench/bare-server.ts'], cache, '/bare'],
      ['nubis', serve, env, '/healthz'],
    ] as const) {
      const t0 = performance.now();
      const started = await startProcess([...script], processEnv);
      starts[kind].push(await firstAnswer(started.url, t0, path));
      await stop(started);
    }
  }
  result.bareStartMs = median(starts.bare);
  result.coldStartMs = median(starts.nubis);
  const bare = await startProcess(['bench/bare-server.ts'], {});
  const first = await startProcess(serve, env);
  const nubis = [first];
  for (let i = 1; i < instances; i++) nubis.push(await startProcess(serve, env));
  const urls = nubis.map((n) => n.url);
  const url = urls[0]!;
  let floorServer: Started | undefined;
  try {
    const reader = await benchAccount(url, 'reader', 5, true);
    const add = (row: Row) => {
      result.rows.push(row);
      console.log(
        `  ${row.scenario}: ${row.rps}/s, p99 ${row.p99} ms, ${row.cpuUsPerRequest} µs CPU/request${row.errors ? `, ${row.errors} errors` : ''}${row.floor && row.toFloor ? ` (floor ${row.floor.rps}/s, p99 ${row.floor.p99} ms, ${row.floor.cpuUsPerRequest} µs: CPU ${fixed(row.toFloor.cpu)}×, req/s ${fixed(row.toFloor.rps)}×, p99 ${fixed(row.toFloor.p99)}×)` : ''}`,
      );
    };
    add(await load('bare Fastify GET /bare', [bare.url], { path: '/bare' }));

    if (which === 'large') {
      // The same reads for an account whose history holds `historyItems` closed invoice items.
      const old = await benchAccount(url, 'history', 5);
      await seedHistory(config, old.id, historyItems);
      result.seeded = { servers: stored, historyItems, seconds: (performance.now() - t) / 1000 };
      for (const [who, account] of [
        ['fresh account', reader],
        [`${historyItems} invoice items`, old],
      ] as const) {
        add(await load(`GET /v1.3/account/info [${who}]`, [url], { path: '/v1.3/account/info', token: account.token }));
        add(
          await load(`GET /v1.3/server/info [${who}]`, [url], {
            path: `/v1.3/server/info/${account.uuids[0]}`,
            token: account.token,
          }),
        );
        add(
          await load(`GET /v1.3/server/activity [${who}]`, [url], {
            path: `/v1.3/server/activity/${account.uuids[0]}`,
            token: account.token,
          }),
        );
      }
      result.memoryMb = residentMb(first.child.pid);
      result.memoryParts = residentParts(first.child.pid);
      return result;
    }

    // The floor, on the same database as this case's Nubis, with account/info's body of this run.
    const floorKey = randomBytes(32);
    const floorDb = database?.url ?? join(dataDir, 'floor.db');
    const body = (await call(url, 'GET', '/v1.3/account/info', reader.token)).body;
    const floorToken = await seedFloor(database ? { postgresUrl: floorDb } : { sqliteFile: floorDb }, floorKey, body);
    floorServer = await startProcess(['bench/floor-server.ts'], {
      FLOOR_DB: floorDb,
      FLOOR_KEY: floorKey.toString('hex'),
    });
    const floor = { url: floorServer.url, token: floorToken };

    const readSets = instances > 1 ? [[url], urls] : [urls];
    for (const set of readSets) {
      const suffix = instances > 1 ? ` [${set.length} instance${set.length > 1 ? 's' : ''}]` : '';
      for (const read of reads(reader))
        add(await besideFloor(`${read.name}${suffix}`, set, { path: read.path, token: reader.token }, floor));
    }

    const lister = await benchAccount(url, 'list', listSize);
    const creators: string[] = [];
    for (let i = 0; i < 20; i++) creators.push((await benchAccount(url, `create-${i}`)).token);
    const createRow = await load('POST /v1.3/server/create (20 connections, one account each)', urls, {
      method: 'POST',
      path: '/v1.3/server/create',
      tokens: creators,
      body: serverBody,
      connections: 20,
    });
    add(createRow);
    result.createPerSecond = createRow.rps;
    // Server time of one list, sequentially, from the Server-Timing header.
    const samples: number[] = [];
    for (let i = 0; i < 50; i++) {
      const response = await fetch(`${url}/v1.3/server/list`, { headers: { authorization: `Bearer ${lister.token}` } });
      const body = (await response.json()) as { servers: unknown[] };
      const timing = /dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '');
      if (timing) samples.push(Number(timing[1]));
      if (i === 0 && body.servers.length !== listSize)
        throw new Error(`expected ${listSize} servers, listed ${body.servers.length}`);
    }
    samples.sort((a, b) => a - b);
    result.listTiming = {
      p50: samples[Math.floor(samples.length / 2)] ?? NaN,
      p99: samples[Math.floor(samples.length * 0.99)] ?? NaN,
      count: samples.length,
    };
    result.memoryMb = residentMb(first.child.pid);
    result.memoryParts = residentParts(first.child.pid);
    return result;
  } finally {
    result.load.after = loadavg();
    await Promise.all([bare, ...nubis, ...(floorServer ? [floorServer] : [])].map(stop));
    await database?.drop();
  }
}

/** Ends a started process and waits for it to exit. */
function stop(started: Started): Promise<void> {
  if (started.child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    started.child.once('exit', () => resolve());
    started.child.kill('SIGTERM');
  });
}

function runToExit(script: string[], env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, script, { cwd: root, env: { ...process.env, ...env }, stdio: 'inherit' });
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${script.join(' ')} exited ${code}`)))),
  );
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);
const loadText = (load: number[]) => load.map((value) => fixed(value)).join(' ');

function report(results: CaseResult[]): void {
  // A start from the sources is slower than npm start's from the bundle: say so beside the figure.
  const fromSources = prebuiltEntry() === null;
  for (const r of results) {
    const bare = r.rows[0]!;
    console.log(
      `\n${r.case}: db=${r.db}, instances=${r.instances}, ${connections} connections, ${duration}s per scenario, reads in ${rounds} rounds beside the floor (medians), node ${process.version}${r.load ? `, load average ${loadText(r.load.before)} before, ${loadText(r.load.after)} after` : ''}${r.seeded ? `, ${r.seeded.servers} servers stored, ${r.seeded.historyItems} invoice items in one history (seeded in ${r.seeded.seconds.toFixed(0)} s)` : ''}\n`,
    );
    console.log(
      '| scenario | requests/s | p50 ms | p99 ms | errors/non-2xx | server CPU µs/request | floor: req/s; p99 ms; CPU µs | CPU ÷ floor | req/s ÷ floor | p99 ÷ floor | req/s ÷ bare |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of r.rows)
      console.log(
        `| ${row.scenario} | ${row.rps} | ${row.p50} | ${row.p99} | ${row.errors} | ${row.cpuUsPerRequest} | ${row.floor ? `${row.floor.rps}; ${row.floor.p99}; ${row.floor.cpuUsPerRequest}` : ''} | ${row.toFloor ? fixed(row.toFloor.cpu) : ''} | ${row.toFloor ? fixed(row.toFloor.rps) : ''} | ${row.toFloor ? fixed(row.toFloor.p99) : ''} | ${fixed(row.rps / bare.rps)} |`,
      );
    if (r.coldStartMs !== undefined)
      console.log(
        `\ncold start to first answer (existing database): ${r.coldStartMs.toFixed(0)} ms${r.bareStartMs ? `; a bare Fastify process's, side by side: ${r.bareStartMs.toFixed(0)} ms (${fixed(r.coldStartMs / r.bareStartMs)}×)` : ''}${fromSources ? " (from the sources, as dist/server is older than them: not `npm start`'s start; `npm run bundle` first)" : ''}`,
      );
    if (r.listTiming)
      console.log(
        `server/list of ${listSize} servers, server time (Server-Timing) over ${r.listTiming.count} sequential calls: p50 ${r.listTiming.p50.toFixed(2)} ms, p99 ${r.listTiming.p99.toFixed(2)} ms`,
      );
    if (r.memoryMb !== undefined)
      console.log(
        `resident memory of instance 1 after the run: ${r.memoryMb.toFixed(0)} MB${r.memoryParts ? ` (node binary ${r.memoryParts.binary.toFixed(0)} MB, heap and other anonymous ${r.memoryParts.anonymous.toFixed(0)} MB, other files ${r.memoryParts.files.toFixed(0)} MB)` : ''}`,
      );
  }
}

async function main(): Promise<void> {
  const testingOnly = args.only === 'testing';
  const cases: Case[] = testingOnly ? [] : args.only ? [args.only as Case] : ['sqlite', 'postgres', 'large'];
  for (const which of cases)
    if (!['sqlite', 'postgres', 'large'].includes(which)) throw new Error(`--only: unknown case ${which}`);
  mkdirSync(join(root, '.bench'), { recursive: true });
  const results: CaseResult[] = [];
  for (const which of cases) {
    console.log(`${which}…`);
    results.push(await runCase(which));
  }
  const testing = !args.only || testingOnly ? await benchTesting() : undefined;
  report(results);
  if (testing) reportTesting(testing);
  writeFileSync(
    join(root, '.bench/results.json'),
    JSON.stringify(
      { at: new Date().toISOString(), node: process.version, connections, duration, rounds, results, testing },
      null,
      2,
    ),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
