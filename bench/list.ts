// `npm run bench -- --only list`: a long server/list on its own — one account with `--servers`
// servers (1,000 by default), then `--calls` sequential lists (200): the server time each answer
// carries (Server-Timing: up to the body's serialization, not its sending), the server process's
// CPU per list, and what V8 allocated and paused to collect per list (bench/serving-counters.ts,
// preloaded: the allocation is the same from run to run where the times move with the machine's
// load), on SQLite and on PostgreSQL + Redis, each a `nubis serve` run as `npm start` runs it.
// Lighter than the postgres case, which measures the same list after its reads and creates; the
// source of the PostgreSQL list figure of docs/benchmarks.md.

import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { throwawaySchema } from '../test/support/postgres-schema.ts';
import { benchCall, serveEnv } from './serve-env.ts';
import { servingProcess } from '../scripts/serving-process.ts';

const root = new URL('..', import.meta.url).pathname;
const adminToken = 'bench-list-admin-token-0123456789';

export interface ListFigures {
  db: 'sqlite' | 'postgres';
  servers: number;
  calls: number;
  serverTimeMs: { min: number; p50: number; p99: number };
  cpuMsPerList: number;
  /** Bytes V8 allocated a list, and its GC pauses a list (count and ms). */
  allocatedMbPerList: number;
  gcPerList: { count: number; ms: number };
  load: { before: number[]; after: number[] };
}

/** The process's user + system CPU in ms (/proc/<pid>/stat, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function listOn(db: 'sqlite' | 'postgres', servers: number, calls: number): Promise<ListFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nubis-bench-list-'));
  const schema =
    db === 'postgres'
      ? await throwawaySchema(
          process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
          `bench_list_${randomBytes(4).toString('hex')}`,
        )
      : null;
  // Servers running at once (the simulated driver's provisioning takes 60 s by default): a list of
  // a running fleet shows each server's addresses, and stays the same list through the run.
  const serving = servingProcess();
  const countersLines: string[] = [];
  const env = {
    ...process.env,
    ...serving.env,
    ...serveEnv(dataDir, adminToken, schema?.url),
    SIM_PROVISION_SECONDS: '0',
  };
  const migrated = spawnSync(process.execPath, ['bin/nubis.ts', 'migrate'], { cwd: root, env, encoding: 'utf8' });
  if (migrated.status !== 0) throw new Error(`nubis migrate: ${migrated.stderr}`);
  const server = spawn(
    process.execPath,
    ['--import', './bench/serving-counters.ts', ...serving.flags, 'bin/nubis.ts', 'serve'],
    {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer) => {
        output += chunk;
        const found = /(http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (found) resolve(found[1]!);
      };
      server.stdout!.on('data', onData);
      server.stderr!.on('data', onData);
      server.stderr!.on('data', (chunk: Buffer) => {
        for (const line of String(chunk).split('\n')) if (line.startsWith('counters')) countersLines.push(line);
      });
      server.once('exit', (code) => reject(new Error(`nubis serve exited ${code}: ${output.slice(-2000)}`)));
    });
    const call = (method: string, path: string, token: string | null, body?: unknown) =>
      benchCall(url, method, path, token, body);
    const registered = await call('POST', '/v1.3/account/register', null, {
      email: `bench-list-${randomBytes(4).toString('hex')}@example.com`,
      password: 'bench-password',
      firstname: 'Bench',
      lastname: 'List',
      accept_tos: true,
      country: 'NL',
    });
    const token = registered.body.token;
    const account = await call('GET', '/v1.3/account/info', token);
    await call('POST', `/admin/accounts/${account.body.id}/credit`, adminToken, { amount: 1_000_000 });
    for (let made = 0; made < servers; made += 50) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(50, servers - made) }, () =>
          call('POST', '/v1.3/server/create', token, {
            hostname: 'list.example.com',
            label: 'list',
            region: 101,
            image: 1001,
            plan: 1,
          }),
        ),
      );
      for (const answer of answers)
        if (answer.status !== 201)
          throw new Error(`server/create answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }
    for (let warm = 0; warm < 20; warm++) await call('GET', '/v1.3/server/list', token);
    const load = { before: loadavg(), after: [] as number[] };
    const times: number[] = [];
    server.kill('SIGUSR2');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const cpuBefore = cpuMs(server.pid!);
    for (let i = 0; i < calls; i++) {
      const answer = await call('GET', '/v1.3/server/list', token);
      if (answer.body.servers.length !== servers) throw new Error(`listed ${answer.body.servers.length} servers`);
      times.push(Number(/dur=([\d.]+)/.exec(answer.timing ?? '')?.[1]));
    }
    const cpuMsPerList = (cpuMs(server.pid!) - cpuBefore) / calls;
    load.after = loadavg();
    const counted = countersLines.length;
    server.kill('SIGUSR1');
    const line = await new Promise<string>((resolve, reject) => {
      const started = Date.now();
      const poll = () =>
        countersLines.length > counted
          ? resolve(countersLines[counted]!)
          : Date.now() - started > 5000
            ? reject(new Error('the serving process wrote no counters'))
            : setTimeout(poll, 10);
      poll();
    });
    const allocated = Number(/allocated (\d+) bytes/.exec(line)?.[1]);
    const gc = /gc (\d+)× ([\d.]+) ms/.exec(line);
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(times.length * q))]!;
    return {
      db,
      servers,
      calls,
      serverTimeMs: { min: times[0]!, p50: at(0.5), p99: at(0.99) },
      cpuMsPerList,
      allocatedMbPerList: allocated / calls / 1e6,
      gcPerList: { count: Number(gc?.[1]) / calls, ms: Number(gc?.[2]) / calls },
      load,
    };
  } finally {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await schema?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchList(servers: number, calls: number): Promise<ListFigures[]> {
  const figures: ListFigures[] = [];
  for (const db of ['sqlite', 'postgres'] as const) {
    const row = await listOn(db, servers, calls);
    const load = (values: number[]) => values.map((value) => value.toFixed(1)).join(' ');
    console.log(
      `list: ${db}: ${servers} servers, ${calls} calls: server time min ${row.serverTimeMs.min.toFixed(1)} ms, ` +
        `p50 ${row.serverTimeMs.p50.toFixed(1)} ms, p99 ${row.serverTimeMs.p99.toFixed(1)} ms; ` +
        `${row.cpuMsPerList.toFixed(1)} ms of CPU a list; ${row.allocatedMbPerList.toFixed(2)} MB allocated and ` +
        `${row.gcPerList.count.toFixed(1)} GC pauses (${row.gcPerList.ms.toFixed(1)} ms) a list; ` +
        `load ${load(row.load.before)} → ${load(row.load.after)}`,
    );
    figures.push(row);
  }
  return figures;
}
