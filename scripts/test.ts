// `npm test`: runs every test file once per database — SQLite, then PostgreSQL + Redis — and
// then the scale-out suite (several `nubis` processes on one PostgreSQL and Redis). On a machine
// without PostgreSQL or Redis the stages that need them do not run, and the run ends by naming
// them and why (exit 0 when everything that ran passed); under CI=true every stage is required
// and a missing one fails the run. TEST_DATABASES=sqlite narrows the run; file arguments run
// just those files.
//
// The stages run side by side, in three lines: SQLite; PostgreSQL then scale-out; the browser
// then reverse DNS. Most of a test file's time is spent waiting (on PostgreSQL, on a child
// process, on a grace period, on Chromium), not computing: one stage after another left the
// machine's cores idle for half the run (docs/benchmarks.md, "npm test"). With several stages
// under way, each one's report is printed whole when it ends, so reports do not interleave.

import './compile-cache.ts';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';

const databases = (process.env.TEST_DATABASES ?? 'sqlite,postgres')
  .split(',')
  .map((d) => d.trim())
  .filter(Boolean);
const pgUrl = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
const redisUrl = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
const explicitFiles = process.argv.slice(2);
const ci = /^(1|true|yes)$/i.test(process.env.CI ?? '');
/** Stages that did not run, with why: said again at the end of the run. */
const notRun: string[] = [];
const unitFiles = explicitFiles.filter((file) => !file.endsWith('.e2e.ts') && !file.endsWith('.pdns.ts'));
const files = explicitFiles.length ? unitFiles : ['src/**/*.test.ts', 'test/**/*.test.ts', 'testing/**/*.test.ts'];
/**
 * Test files a database stage runs at once. Each waits more than it computes, so more files than
 * cores keep the cores busy; 6 was the fastest whole run of the values measured (docs/benchmarks.md).
 */
const concurrency = process.env.TEST_CONCURRENCY ?? '6';

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

interface Stage {
  title: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/** Several lines of stages under way: each report waits for its stage's end to be printed. */
let several = false;

/** Runs one stage's `node --test`; answers whether it passed. */
function run(stage: Stage): Promise<boolean> {
  const buffered = several;
  if (!buffered) console.log(`\n=== ${stage.title} ===`);
  const child = spawn(process.execPath, stage.args, {
    stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    env: stage.env,
  });
  const output: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      if (buffered) {
        process.stdout.write(`\n=== ${stage.title} ===\n`);
        process.stdout.write(Buffer.concat(output));
      }
      resolve(code === 0);
    });
  });
}

/** Stages run one after the other; answers whether all passed (a failed one ends the line). */
type Line = () => Promise<boolean>;

let failed = false;
/** The databases whose services answered, which the later per-database stages run on. */
const reached: string[] = [];
for (const db of files.length ? databases : []) {
  if (db !== 'sqlite' && db !== 'postgres') {
    console.error(`npm test: unknown database "${db}" in TEST_DATABASES (use sqlite, postgres)`);
    process.exit(2);
  }
  if (db === 'postgres') {
    const [pgUp, redisUp] = await Promise.all([
      reachable(pgUrl.hostname, Number(pgUrl.port || 5432)),
      reachable(redisUrl.hostname, Number(redisUrl.port || 6379)),
    ]);
    if (!pgUp || !redisUp) {
      const missing = `${!pgUp ? `PostgreSQL at ${pgUrl.host}` : ''}${!pgUp && !redisUp ? ' and ' : ''}${!redisUp ? `Redis at ${redisUrl.host}` : ''} not reachable`;
      const stages = `the suite on PostgreSQL + Redis${explicitFiles.length ? '' : ' and the scale-out suite'}`;
      if (ci) {
        console.error(`npm test: ${missing} (CI=true: every stage is required): start them`);
        failed = true;
      } else {
        console.log(`\nnot run: ${stages}: ${missing} (start them, or TEST_DATABASES=sqlite to ask for SQLite only)`);
        notRun.push(`${stages}: ${missing}`);
      }
      continue;
    }
  }
  reached.push(db);
}

const lines: Line[] = [];
for (const db of reached) {
  const suite: Stage = {
    title: `test suite on ${db}${db === 'postgres' ? ' + Redis' : ''}`,
    args: ['--test', `--test-concurrency=${concurrency}`, '--test-timeout=120000', ...files],
    env: { ...process.env, TEST_DB: db },
  };
  const scaleOut = db === 'postgres' && explicitFiles.length === 0 && !failed && !notRun.length;
  lines.push(async () => {
    if (!(await run(suite))) return false;
    if (!scaleOut) return true;
    return run({
      title: 'scale-out suite: several instances on PostgreSQL + Redis',
      args: ['--test', '--test-concurrency=1', '--test-timeout=180000', 'test/scale-out/*.scale.ts'],
      env: process.env,
    });
  });
}

// Reverse DNS published to a real PowerDNS (Debian's pdns-server, pdns-backend-sqlite3 and dig
// from bind9-dnsutils), on every database that ran: as Chromium below, missing is "not run" on a
// laptop and a failure under CI=true.
const pdnsFiles = explicitFiles.filter((file) => file.endsWith('.pdns.ts'));
const dnsStages: Stage[] = [];
if (explicitFiles.length === 0 || pdnsFiles.length) {
  const needed = [
    process.env.PDNS_SERVER_PATH ?? '/usr/sbin/pdns_server',
    '/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql',
    '/usr/bin/dig',
  ];
  const absent = needed.find((path) => !existsSync(path));
  if (absent) {
    if (ci) {
      console.error(
        `npm test: ${absent} not found (CI=true): apt-get install pdns-server pdns-backend-sqlite3 bind9-dnsutils`,
      );
      failed = true;
    } else {
      console.log(
        `\nnot run: the reverse DNS suite: ${absent} not found (apt-get install pdns-server pdns-backend-sqlite3 bind9-dnsutils)`,
      );
      notRun.push(`the reverse DNS suite: ${absent} not found`);
    }
  }
  // Only PowerDNS files asked for: no database stage ran before, so every database asked for.
  else
    for (const db of explicitFiles.length && !unitFiles.length ? databases : reached)
      dnsStages.push({
        title: `reverse DNS suite: PowerDNS Authoritative on ${db}`,
        args: [
          '--test',
          '--test-concurrency=1',
          '--test-timeout=180000',
          ...(pdnsFiles.length ? pdnsFiles : ['test/dns/*.pdns.ts']),
        ],
        env: { ...process.env, TEST_DB: db },
      });
}

// The web console in a real browser: once, on the first database of the run. Chromium may be
// missing on a laptop: then the stage says "not run" and counts as nothing; under CI=true
// its absence fails the run. A console that was not built (npm install builds it) fails.
let browser: Stage | null = null;
if (explicitFiles.length === 0 || explicitFiles.some((file) => file.endsWith('.e2e.ts'))) {
  const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(chromium)) {
    if (ci) {
      console.error(`npm test: Chromium not found at ${chromium} (CI=true): apt-get install chromium`);
      failed = true;
    } else {
      console.log(
        `\nnot run: the browser suite: Chromium not found at ${chromium} (apt-get install chromium, or set CHROMIUM_PATH)`,
      );
      notRun.push(`the browser suite: Chromium not found at ${chromium}`);
    }
  } else if (!existsSync('console/dist/index.html')) {
    console.error(
      'npm test: the console is not built (console/dist): run npm install or npm run build -w @nubis/console',
    );
    failed = true;
  } else {
    const e2eFiles = explicitFiles.filter((file) => file.endsWith('.e2e.ts'));
    browser = {
      title: 'browser suite: the web console in Chromium',
      args: [
        '--test',
        '--test-concurrency=1',
        '--test-timeout=180000',
        ...(e2eFiles.length ? e2eFiles : ['test/e2e/*.e2e.ts']),
      ],
      env: { ...process.env, TEST_DB: databases[0] ?? 'sqlite' },
    };
  }
}
const last = [...(browser ? [browser] : []), ...dnsStages];
if (last.length)
  lines.push(async () => {
    let passed = true;
    for (const stage of last) passed = (await run(stage)) && passed;
    return passed;
  });

several = lines.length > 1;
if (several)
  console.log(`\n=== ${lines.length} lines of stages side by side; each stage's report follows when it ends ===`);
const outcomes = await Promise.all(lines.map((line) => line()));
if (outcomes.includes(false)) failed = true;

if (notRun.length) {
  console.log(`\nnpm test: ${failed ? 'failed; also ' : 'passed what ran; '}not run:`);
  for (const stage of notRun) console.log(`  - ${stage}`);
}
process.exit(failed ? 1 : 0);
