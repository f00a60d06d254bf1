// `node bench/tail.ts`: where account/info's p99 on PostgreSQL + Redis comes from (issue 38;
// docs/benchmarks.md, "Where PostgreSQL's account/info tail comes from"). One PostgreSQL schema, one
// account, the floor (bench/floor-server.ts) and one Nubis per variant, each as `npm start` runs it
// and preloaded with bench/serving-counters.ts; then rounds, each warming every process with 10,000
// requests and loading it for DURATION s at CONNECTIONS connections, alternating: requests/s,
// p50, p99, CPU a request and the process's counters over exactly that window, with the load.
// VARIANTS: a JSON list of { name, args, env } (default: one Nubis as shipped), e.g.
//   VARIANTS='[{"name":"shipped","args":[]},{"name":"pool50","args":[],"env":{"DB_POOL_SIZE":"50"}}]'
// ROUNDS (3), DURATION (5), CONNECTIONS (50).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { throwawaySchema } from '../test/support/postgres-schema.ts';
import { seedFloor } from './seed.ts';
import { benchCall, serveEnv } from './serve-env.ts';
import { servingProcess } from '../scripts/serving-process.ts';

const root = new URL('..', import.meta.url).pathname;
const adminToken = 'bench-tail-admin-token-0123456789';
const rounds = Number(process.env.ROUNDS ?? 3);
const duration = Number(process.env.DURATION ?? 5);
const connections = Number(process.env.CONNECTIONS ?? 50);

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const dataDir = mkdtempSync(join(tmpdir(), 'nubis-bench-tail-'));
const schema = await throwawaySchema(
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  `bench_tail_${randomBytes(4).toString('hex')}`,
);
const env = { ...process.env, ...serveEnv(dataDir, adminToken, schema.url) };
const migrated = spawnSync(process.execPath, ['bin/nubis.ts', 'migrate'], { cwd: root, env, encoding: 'utf8' });
if (migrated.status !== 0) throw new Error(`nubis migrate: ${migrated.stderr}`);

interface Served {
  url: string;
  child: ChildProcess;
  lines: string[];
}
function start(args: string[], extraEnv: Record<string, string>): Promise<Served> {
  const child = spawn(process.execPath, ['--import', './bench/serving-counters.ts', ...args], {
    cwd: root,
    env: { ...env, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      for (const line of String(chunk).split('\n')) if (line.startsWith('counters')) lines.push(line);
      const found = /(http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (found) resolve({ url: found[1]!, child, lines });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output.slice(-2000)}`)));
  });
}
async function stop(s: Served) {
  if (s.child.exitCode !== null) return;
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.kill('SIGTERM');
  await exited;
}
async function call(url: string, method: string, path: string, token: string | null, body?: unknown) {
  return (await benchCall(url, method, path, token, body)).body;
}

const variants: { name: string; args: string[]; env?: Record<string, string> }[] = JSON.parse(
  process.env.VARIANTS ?? '[{"name":"nubis","args":[]}]',
);
// Each Nubis as `npm start` runs it; a variant's own flags come after, so they win.
const serving = servingProcess();
const served = await Promise.all(
  variants.map((v) => start([...serving.flags, ...v.args, 'bin/nubis.ts', 'serve'], { ...serving.env, ...v.env })),
);
const nubis = served[0]!;
let floor: Served | undefined;
try {
  const registered = await call(nubis.url, 'POST', '/v1.3/account/register', null, {
    email: `bench-tail-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench-password',
    firstname: 'Bench',
    lastname: 'Tail',
    accept_tos: true,
    country: 'NL',
  });
  const token = registered.token as string;
  const info = await call(nubis.url, 'GET', '/v1.3/account/info', token);
  const floorKey = randomBytes(32);
  const floorToken = await seedFloor({ postgresUrl: schema.url }, floorKey, info);
  floor = await start(['bench/floor-server.ts'], { FLOOR_DB: schema.url, FLOOR_KEY: floorKey.toString('hex') });
  const targets = [
    { name: 'floor', s: floor, path: '/floor', token: floorToken },
    ...variants.map((v, i) => ({ name: v.name, s: served[i]!, path: '/v1.3/account/info', token })),
  ];
  for (let round = 0; round < rounds; round++) {
    for (const t of targets) {
      const headers = { authorization: `Bearer ${t.token}` };
      await autocannon({ url: t.s.url + t.path, connections: 10, amount: 10_000, headers });
      t.s.child.kill('SIGUSR2');
      await new Promise((r) => setTimeout(r, 50));
      const load0 = loadavg()[0]!;
      const cpu0 = cpuMs(t.s.child.pid!);
      const r = await autocannon({ url: t.s.url + t.path, connections, duration, headers });
      const cpu = cpuMs(t.s.child.pid!) - cpu0;
      t.s.child.kill('SIGUSR1');
      await new Promise((r) => setTimeout(r, 200));
      console.log(
        `${new Date().toISOString().slice(11, 19)} ${t.name.padEnd(8)} ${Math.round(r.requests.average)}/s p50 ${r.latency.p50} p97.5 ${r.latency.p97_5} p99 ${r.latency.p99} max ${r.latency.max} ms, ${Math.round((cpu * 1000) / r.requests.total)} µs CPU, errors ${r.errors + r.non2xx}, load ${load0.toFixed(1)}`,
      );
      console.log(`         ${t.s.lines.at(-1) ?? '(no counters)'}`);
    }
  }
} finally {
  if (floor) await stop(floor);
  for (const s of served) await stop(s);
  await schema.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
