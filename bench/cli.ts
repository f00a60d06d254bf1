// The `nubis` command as a client developer has it, for `npm run bench` (`--only cli` alone):
// `npm run pack`, the three tarballs installed into a scratch project, then the installed
// `node_modules/.bin/nubis` run in rounds — `node -e 0` (Node's own start, for scale), `--help`,
// a list call as a table and as JSON against `nubis dev` from the same install, holding one
// server — one warm-up round first (Node's compile cache), the commands alternating within each
// round so the machine's load falls on all alike. Each run is timed by the wall clock and by the
// CPU its process used (user + system, from bash's `times`: getrusage of the children, in ms);
// CPU moves far less with what else runs on the machine. Targets (issue 39): `--help` ≤ 150 ms,
// a list call ≤ 300 ms. `installed` measures a project where the packages are installed already
// (an older build, to compare) instead of packing this checkout.

import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const root = resolve(import.meta.dirname, '..');

export interface CommandFigure {
  command: string;
  wallP50: number;
  wallP90: number;
  fastest: number;
  cpuP50: number;
  runs: number;
  target?: string;
}

export interface CliFigures {
  at: string;
  node: string;
  /** Load average (1, 5, 15 min) before and after the runs. */
  load: { before: number[]; after: number[] };
  rows: CommandFigure[];
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

/** Runs a command through bash, which reports its child's CPU; wall-clock ms and CPU ms. */
async function timedRun(
  command: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ wall: number; cpu: number }> {
  const t0 = performance.now();
  const child = spawn('bash', ['-c', '"$@" >/dev/null 2>&1 || exit 90; times', 'bench', ...command], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const [code] = await once(child, 'exit');
  const wall = performance.now() - t0;
  if (code !== 0) throw new Error(`${command.join(' ')} failed (exit ${code})`);
  // `times`: the shell's own user/system, then its children's, e.g. "0m0.052s 0m0.011s".
  const children = out.trim().split('\n').at(-1)!;
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return { wall, cpu: (seconds[0]! + seconds[1]!) * 1000 };
}

/** This checkout packed (`npm run pack`) and installed into a scratch project; the project's folder. */
function install(scratch: string): string {
  const packages = join(scratch, 'packages');
  const project = join(scratch, 'project');
  mkdirSync(project);
  execFileSync(process.execPath, [join(root, 'scripts/pack.ts'), '--out', packages], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  writeFileSync(join(project, 'package.json'), '{"name":"bench-client","private":true,"type":"module"}\n');
  const tarballs = readdirSync(packages)
    .filter((name) => name.endsWith('.tgz'))
    .map((name) => join(packages, name));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs], {
    cwd: project,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return project;
}

export async function benchCli(runs = 15, installed?: string): Promise<CliFigures> {
  const scratch = mkdtempSync(join(tmpdir(), 'nubis-bench-cli-'));
  try {
    const project = installed ? resolve(installed) : install(scratch);
    // The bin's `#!/usr/bin/env node` finds this Node; nothing of a developer's own context leaks in.
    const env: NodeJS.ProcessEnv = {
      PATH: [dirname(process.execPath), process.env.PATH].join(delimiter),
      HOME: scratch,
      XDG_CONFIG_HOME: join(scratch, 'config'),
      TMPDIR: process.env.TMPDIR ?? tmpdir(),
    };
    const nubis = join(project, 'node_modules/.bin/nubis');
    const dev = spawn(nubis, ['dev', '--port', '0', '--ready-json'], {
      cwd: project,
      env: { ...env, NUBIS_SEED: 'bench-cli', DATA_DIR: join(scratch, 'data') },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const [line] = (await Promise.race([
        once(createInterface({ input: dev.stdout }), 'line'),
        once(dev, 'exit').then(([code]) => {
          throw new Error(`nubis dev exited ${code} before it was ready`);
        }),
      ])) as [string];
      const ready = JSON.parse(line) as { url: string; account: { token: string } };
      const created = await fetch(`${ready.url}/v1.3/server/create`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ready.account.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ hostname: 'web-1', label: 'web 1', region: 101, image: 1001, plan: 1 }),
      });
      if (created.status !== 202 && created.status !== 201) throw new Error(`server/create: ${created.status}`);
      const callEnv = { ...env, NUBIS_URL: ready.url, NUBIS_TOKEN: ready.account.token };
      const commands: { name: string; argv: string[]; target?: string }[] = [
        { name: '`node -e 0` (Node alone, for scale)', argv: [process.execPath, '-e', '0'] },
        { name: '`nubis --help`', argv: [nubis, '--help'], target: '≤ 150 ms' },
        { name: '`nubis server list`', argv: [nubis, 'server', 'list'], target: '≤ 300 ms' },
        { name: '`nubis -o json server list`', argv: [nubis, '-o', 'json', 'server', 'list'], target: '≤ 300 ms' },
      ];
      const before = loadavg();
      const times = commands.map(() => [] as { wall: number; cpu: number }[]);
      for (let round = 0; round <= runs; round++)
        for (const [at, command] of commands.entries()) {
          const run = await timedRun(command.argv, callEnv, project);
          if (round > 0) times[at]!.push(run);
        }
      const rows = commands.map((command, at) => {
        const walls = times[at]!.map((run) => run.wall);
        return {
          command: command.name,
          wallP50: quantile(walls, 0.5),
          wallP90: quantile(walls, 0.9),
          fastest: Math.min(...walls),
          cpuP50: quantile(
            times[at]!.map((run) => run.cpu),
            0.5,
          ),
          runs: walls.length,
          target: command.target,
        };
      });
      return { at: new Date().toISOString(), node: process.version, load: { before, after: loadavg() }, rows };
    } finally {
      dev.kill('SIGTERM');
      if (dev.exitCode === null) await once(dev, 'exit');
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export function reportCli(figures: CliFigures): void {
  const load = (values: number[]) => values.map((value) => value.toFixed(1)).join(' ');
  console.log(
    `\nthe installed nubis command (load average ${load(figures.load.before)} before, ${load(figures.load.after)} after)\n`,
  );
  console.log('| command | wall p50 | wall p90 | fastest | CPU p50 | runs | target |');
  console.log('|---|---:|---:|---:|---:|---:|---|');
  for (const row of figures.rows)
    console.log(
      `| ${row.command} | ${row.wallP50.toFixed(0)} ms | ${row.wallP90.toFixed(0)} ms | ${row.fastest.toFixed(0)} ms | ${row.cpuP50.toFixed(0)} ms | ${row.runs} | ${row.target ?? ''} |`,
    );
}

if (import.meta.main) reportCli(await benchCli(Number(process.argv[2] ?? 15), process.argv[3]));
