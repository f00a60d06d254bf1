// @nubis/testing's figures for `npm run bench`: how long `startNubis()` takes — the first call in
// a fresh process (the server loads then: the prebuilt bundle while it matches the sources, from
// Node's code cache once warm), in seven processes one after the other, and each further call in
// the same process — and how long `reset()` takes after a test left an account with servers, a
// floating IP and a fault rule behind, unseeded and seeded. Measured in child processes of their
// own, so nothing the rest of the bench loaded counts.
// Beside each first start, the floor: a bare Fastify process's first start (import Fastify, one
// route, listen), alternating with it, so that the ratio of one run says what the machine's load
// does not.
// Targets (issue 26, 39): start ≤ 200 ms on a quiet machine and ≤ 2× the bare Fastify start, reset ≤ 20 ms.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { enableCompileCache } from 'node:module';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Nubis } from '@nubis/testing';

/** Wall-clock ms (median, 95th percentile) and the process's CPU ms (median) of each run. */
interface Spread {
  p50: number;
  p95: number;
  cpuP50: number;
  runs: number;
}

export interface TestingFigures {
  /** The first startNubis() of a process, modules loading included: one fresh process each. */
  firstStart: Spread;
  /** A bare Fastify's first start in a fresh process (the floor), alternating with the above. */
  bareFirstStart: Spread;
  /** Where the first starts loaded the server from (src/prebuilt.ts). */
  code: string;
  /** The machine's load average (1, 5, 15 minutes) before and after. */
  load: { before: number[]; after: number[] };
  /** Further starts in the same process. */
  startMs: Spread;
  /** reset() after each round of work. */
  resetMs: Spread;
  seededResetMs: Spread;
}

const starts = 10;
const resets = 40;
/** Fresh processes, each timing its first start (each test file of a `node --test` run is one). */
const firstStarts = 7;

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

/** Times `work` by the wall clock and by the process's CPU (a busy machine stretches the first, not the second). */
async function timed(work: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await work();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

function spread(runs: { wall: number; cpu: number }[]): Spread {
  const walls = runs.map((run) => run.wall);
  return {
    p50: quantile(walls, 0.5),
    p95: quantile(walls, 0.95),
    cpuP50: quantile(
      runs.map((run) => run.cpu),
      0.5,
    ),
    runs: runs.length,
  };
}

/** Runs `bench/testing.ts <mode>` in a fresh process and answers what it printed. */
async function inChild<T>(mode: string): Promise<T> {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`bench/testing.ts ${mode} exited ${code}`);
  return JSON.parse(out) as T;
}

/** Runs the measurements, each in fresh processes, and answers their figures. */
export async function benchTesting(): Promise<TestingFigures> {
  const before = loadavg();
  const firsts: { wall: number; cpu: number; code: string }[] = [];
  const bareFirsts: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < firstStarts; i++) {
    firsts.push(await inChild('--first'));
    bareFirsts.push(await inChild('--bare-first'));
  }
  const rest = await inChild<Omit<TestingFigures, 'firstStart' | 'bareFirstStart' | 'code' | 'load'>>('--child');
  return {
    ...rest,
    load: { before, after: loadavg() },
    firstStart: spread(firsts),
    bareFirstStart: spread(bareFirsts),
    code: [...new Set(firsts.map((first) => first.code))].join(', '),
  };
}

export function reportTesting(figures: TestingFigures): void {
  const row = (name: string, q: Spread, target: string) =>
    console.log(
      `| ${name} | ${q.p50.toFixed(1)} | ${q.p95.toFixed(1)} | ${q.cpuP50.toFixed(1)} | ${q.runs} | ${target} |`,
    );
  const load = (figures: number[]) => figures.map((figure) => figure.toFixed(1)).join(' ');
  console.log(
    `\n@nubis/testing (in-process Nubis, SQLite in memory; load average ${load(figures.load.before)} before, ${load(figures.load.after)} after)\n`,
  );
  console.log('| figure | p50 ms | p95 ms | CPU p50 ms | runs | target |');
  console.log('|---|---:|---:|---:|---:|---|');
  row(`startNubis(), first in a fresh process (modules load: ${figures.code})`, figures.firstStart, '≤ 200 ms');
  row('bare Fastify, first start in a fresh process (the floor)', figures.bareFirstStart, '');
  const ratio = (of: (q: Spread) => number) => (of(figures.firstStart) / of(figures.bareFirstStart)).toFixed(2);
  console.log(
    `| first start ÷ the floor's | ${ratio((q) => q.p50)} | ${ratio((q) => q.p95)} | ${ratio((q) => q.cpuP50)} | | ≤ 2 |`,
  );
  row('startNubis(), further starts in the process', figures.startMs, '≤ 200 ms');
  row('reset(), unseeded', figures.resetMs, '≤ 20 ms');
  row('reset(), seeded (starts over: ids, clock, stream)', figures.seededResetMs, '≤ 20 ms');
}

/**
 * Where the server that `@nubis/testing` loads comes from, as `nubis serve` logs it: that package's
 * own checkout, which is another one when node_modules links it there (a git worktree sharing
 * the main checkout's node_modules measures the main checkout's server, and its bundle's
 * freshness, not this one's).
 */
async function loadedCode(): Promise<string> {
  const checkout = new URL('../../', import.meta.resolve('@nubis/testing'));
  const { prebuiltEntry } = (await import(
    new URL('src/prebuilt.ts', checkout).href
  )) as typeof import('../src/prebuilt.ts');
  const code = prebuiltEntry() ? 'prebuilt' : 'sources';
  return checkout.href === new URL('../', import.meta.url).href ? code : `${code} of ${fileURLToPath(checkout)}`;
}

/** The first start of this process; where the server was loaded from. */
async function measureFirst(): Promise<{ wall: number; cpu: number; code: string }> {
  const { startNubis } = await import('@nubis/testing');
  let first: Nubis | undefined;
  const firstStart = await timed(async () => {
    first = await startNubis();
  });
  await first?.close();
  return { ...firstStart, code: await loadedCode() };
}

/** The floor's first start: Fastify loaded from node_modules, one JSON route, listening. */
async function measureBareFirst(): Promise<{ wall: number; cpu: number }> {
  enableCompileCache();
  let app: import('fastify').FastifyInstance | undefined;
  const first = await timed(async () => {
    const { default: Fastify } = await import('fastify');
    app = Fastify({ logger: false });
    app.get('/bare', async () => ({ hello: 'world' }));
    await app.listen({ port: 0, host: '127.0.0.1' });
  });
  await app?.close();
  return first;
}

async function measure(): Promise<Omit<TestingFigures, 'firstStart' | 'bareFirstStart' | 'code' | 'load'>> {
  const { startNubis } = await import('@nubis/testing');
  // This process's first start is measureFirst's, in processes of their own.
  await (await startNubis()).close();
  const startTimes: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < starts; i++) {
    let nubis: Nubis | undefined;
    startTimes.push(
      await timed(async () => {
        nubis = await startNubis();
      }),
    );
    await nubis?.close();
  }
  const resetTimes = async (seed: string | undefined) => {
    const nubis = await startNubis({ seed });
    const times: { wall: number; cpu: number }[] = [];
    for (let i = 0; i < resets; i++) {
      // What a test leaves behind: an account with servers, a floating IP, a fault rule.
      const account = await nubis.account();
      for (const hostname of ['web-1', 'web-2'])
        await account.client.POST('/v1.3/server/create', {
          body: { hostname, label: hostname, region: 101, image: 1001, plan: 1 },
        });
      await account.client.POST('/v1.3/floating_ip/create', { body: { region_id: 101, ip_version: 4 } });
      await nubis.fault({ match: { path: '/v1.3/region/list' }, action: { status: 503 } });
      times.push(await timed(() => nubis.reset()));
    }
    await nubis.close();
    return spread(times);
  };
  return {
    startMs: spread(startTimes),
    resetMs: await resetTimes(undefined),
    seededResetMs: await resetTimes('bench'),
  };
}

if (process.argv.includes('--first')) process.stdout.write(JSON.stringify(await measureFirst()));
else if (process.argv.includes('--bare-first')) process.stdout.write(JSON.stringify(await measureBareFirst()));
else if (process.argv.includes('--child')) process.stdout.write(JSON.stringify(await measure()));
else if (import.meta.main) reportTesting(await benchTesting());
