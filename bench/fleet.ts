// `npm run bench -- --only fleet`: what a round of the periodic sweeps, and a round of the engine's
// reconciliation, cost as the fleet grows. For each size one process seeds a SQLite database with
// that many running servers (100 an account, each with its open invoice item, every account in
// credit: nothing is due; each status as the engine last reported it; each server's next overage
// look as a round of the sweeps writes it), then another, run as `npm start` runs a serving instance,
// opens the platform as `nubis sweep` does, runs one round to warm up, and measures the CPU of the next round
// and of each sweep in it. The reconciliation runs against an engine stand-in that answers as the
// informer-fed LXD driver does (test/support/engine-stand-in.ts), deriving each server's machine from
// its uuid (it holds none): a full read (the resync), a round with nothing heard, then one with 100 machines
// changed. A round with nothing due must cost the same at every size, and the measuring process,
// which holds only what Nubis and the stand-in hold, must stay within its resident bound.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { createPlatform, prepareStorage } from '../src/instance.ts';
import { sweeps } from '../src/sweeps/sweeps.ts';
import { seed } from './seed.ts';
import { reconcile } from '../src/compute/job-runner.ts';
import { seenReport } from '../src/compute/machine-status.ts';
import { applyConditions } from '../src/compute/machine-conditions.ts';
import { EngineStandIn, standInDriver, standInHost, type StandInMachine } from '../test/support/engine-stand-in.ts';
import type { Platform } from '../src/platform/context.ts';
import { servingProcess } from '../scripts/serving-process.ts';

export interface FleetRow {
  servers: number;
  sweepRoundCpuMs: number;
  perSweepCpuMs: Record<string, number>;
  /** A full read with nothing changed (the resync), a reconciliation with no change heard, one with `changedMachines` changed. */
  resyncCpuMs: number;
  reconcileRoundCpuMs: number;
  reconcileChangedCpuMs: number;
  /** Resident MB after the sweeps and after the rounds, and the process's peak. */
  residentAfterSweepsMb: number;
  residentMb: number;
  peakResidentMb: number;
  /** Of the resident after the rounds: the JavaScript heap in use, and memory outside it (SQLite's, buffers). */
  heapUsedMb: number;
  externalMb: number;
  seedSeconds: number;
}

const quiet = { info() {}, warn() {}, error() {}, debug() {}, fatal() {}, trace() {}, child: () => quiet };

/** Every server's machine as the stand-in holds it, and as the seeded status says the engine last reported it. */
const fleetMachine: StandInMachine = { power: 'running', diskGeneration: 0, powerGeneration: 0 };

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return Math.round(((used.user + used.system) / 1000) * 10) / 10;
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

function configOf(dataDir: string) {
  return loadConfig({ ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '' });
}

/**
 * Open invoice items for every seeded server, a credit for every account, and each server's status
 * as the engine's last report wrote it (so the first full read finds nothing to write), in SQL.
 */
async function seedRest(dataDir: string): Promise<void> {
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(join(dataDir, 'nubis.db'));
  const now = Date.now();
  db.exec('begin');
  // Each server's uuid the engine stand-in derives its machine from (fleetUuid of its id).
  db.prepare("update servers set uuid = printf('%08x-0000-4000-8000-%012x', id & 0xffffffff, id)").run();
  db.prepare(
    `insert into invoice_items (account_id, resource_type, resource_uuid, description, amount_hr_micros,
       amount_mo_micros, created_at, removed_at, prepaid_until, final_charge_micros)
     select account_id, 'server', uuid, 'seeded server', 7000, 5110000, ?, null, null, null from servers`,
  ).run(now);
  db.prepare(
    `insert into transactions (account_id, ptype, pstatus, amount_micros, fee_micros, taxrate_bp, note, created_at, updated_at)
     select id, 'credit', 'completed', 1000000000000, 0, 0, 'seeded credit', ?, ? from accounts`,
  ).run(now, now);
  // The settled total the services keep beside every transaction (billing/settled.ts).
  db.prepare('update accounts set settled_micros = settled_micros + 1000000000000').run();
  // The lists' totals the services keep beside every insert (migration 0017).
  db.prepare(
    `update accounts set transaction_count = transaction_count + 1,
       invoice_item_count = invoice_item_count + (select count(*) from servers where servers.account_id = accounts.id)`,
  ).run();
  const report = seenReport({ disk_generation: 0 }, { ...fleetMachine, host: standInHost });
  db.prepare(
    `update servers set observed_power = ?, observed_disk_generation = ?, observed_power_generation = ?, host = ?,
       conditions = ?`,
  ).run(
    fleetMachine.power,
    fleetMachine.diskGeneration,
    fleetMachine.powerGeneration,
    standInHost,
    applyConditions(null, report.conditions, now).json,
  );
  db.exec('commit');
  db.close();
}

/**
 * The fleet at rest, as a serving instance's sweeps leave it: a round of every sweep, run in the
 * seeding process. Each seeded server is due for its first overage look (`overage_due_at` 0, as
 * a server made or changed is); that look writes when to look again, which the rows seeded in SQL
 * cannot know. Without it the measuring process's warm-up round made a million looks (115 s of
 * CPU) that no serving instance makes but once, and the bench's figures were that pass's.
 */
async function settle(dataDir: string): Promise<void> {
  const config = configOf(dataDir);
  const storage = await prepareStorage(config, quiet as never);
  const ctx = await createPlatform(config, storage, quiet as never);
  for (const sweep of sweeps) await sweep.run(ctx);
  await storage.close();
}

const changedMachines = 100;

/**
 * The reconciliation rounds against the stand-in: a first full read (the informer's first, spent
 * as a warm-up), a second one with nothing changed (what every COMPUTE_RESYNC_SECONDS costs), one
 * with nothing heard, then one in which `changedMachines` servers' machines were heard to change
 * (stopped outside Nubis: each is read, and its status and a server.power event written).
 */
async function reconcileRounds(
  platform: Platform,
): Promise<Pick<FleetRow, 'resyncCpuMs' | 'reconcileRoundCpuMs' | 'reconcileChangedCpuMs'>> {
  const engine = new EngineStandIn();
  // The engine's machines, made before Nubis listened: one per server (each seeded server's uuid
  // is the stand-in's fleetUuid of its id), derived from the uuid when read.
  const { count } = await platform.db
    .selectFrom('servers')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  engine.fleet(Number(count), fleetMachine);
  const ctx: Platform = { ...platform, compute: standInDriver(engine) };
  const expect = (what: string, corrected: number) => {
    if (corrected !== 0)
      throw new Error(`${what} corrected ${corrected} servers: the seeded status is not the engine's`);
  };
  expect('the first full read', await reconcile(ctx));
  engine.dropStream();
  engine.resetCounts();
  const resync = process.cpuUsage();
  expect('the resync', await reconcile(ctx));
  const resyncCpuMs = cpuMs(resync);
  if (engine.calls !== 1) throw new Error(`the resync asked the engine ${engine.calls} times`);
  const nothing = process.cpuUsage();
  expect('a round with nothing heard', await reconcile(ctx));
  const reconcileRoundCpuMs = cpuMs(nothing);
  const some = await ctx.db.selectFrom('servers').select('uuid').orderBy('id').limit(changedMachines).execute();
  for (const { uuid } of some) engine.set(uuid, { ...fleetMachine, power: 'stopped' });
  engine.resetCounts();
  const changed = process.cpuUsage();
  const corrected = await reconcile(ctx);
  const reconcileChangedCpuMs = cpuMs(changed);
  if (engine.read !== changedMachines || corrected !== changedMachines)
    throw new Error(`the changed round read ${engine.read} machines and corrected ${corrected}`);
  return { resyncCpuMs, reconcileRoundCpuMs, reconcileChangedCpuMs };
}

/** In a process of its own: the measured rounds over a seeded database. */
async function measure(dataDir: string, servers: number): Promise<Omit<FleetRow, 'seedSeconds'>> {
  const config = configOf(dataDir);
  const storage = await prepareStorage(config, quiet as never);
  const ctx = await createPlatform(config, storage, quiet as never);
  for (const sweep of sweeps) await sweep.run(ctx);
  const perSweepCpuMs: Record<string, number> = {};
  const round = process.cpuUsage();
  for (const sweep of sweeps) {
    const started = process.cpuUsage();
    await sweep.run(ctx);
    perSweepCpuMs[sweep.name] = cpuMs(started);
  }
  const sweepRoundCpuMs = cpuMs(round);
  const residentAfterSweepsMb = mb(process.memoryUsage.rss());
  const rounds = await reconcileRounds(ctx);
  const memory = process.memoryUsage();
  await storage.close();
  return {
    servers,
    sweepRoundCpuMs,
    perSweepCpuMs,
    ...rounds,
    residentAfterSweepsMb,
    residentMb: mb(memory.rss),
    peakResidentMb: Math.round(process.resourceUsage().maxRSS / 1024),
    heapUsedMb: mb(memory.heapUsed),
    externalMb: mb(memory.external),
  };
}

/** This file run as `--seed <dir> <n>` or `--measure <dir> <n>`: a size's seeding or its measuring, each a process. */
function child(step: '--seed' | '--measure', dataDir: string, servers: number, secretKey: string): string {
  const serving = step === '--measure' ? servingProcess() : { flags: [], env: {} };
  return execFileSync(
    process.execPath,
    [...serving.flags, new URL(import.meta.url).pathname, step, dataDir, String(servers)],
    {
      env: { ...process.env, SECRET_KEY: secretKey, ...serving.env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    },
  );
}

export async function benchFleet(sizes: number[]): Promise<FleetRow[]> {
  const rows: FleetRow[] = [];
  for (const servers of sizes) {
    const dataDir = mkdtempSync(join(tmpdir(), 'nubis-fleet-'));
    try {
      const secretKey = randomBytes(32).toString('hex');
      const seeded = performance.now();
      child('--seed', dataDir, servers, secretKey);
      const seedSeconds = Math.round((performance.now() - seeded) / 1000);
      const row: FleetRow = { ...JSON.parse(child('--measure', dataDir, servers, secretKey)), seedSeconds };
      console.log(
        `fleet: ${servers} servers: sweep round ${row.sweepRoundCpuMs} ms CPU, reconcile round ${row.reconcileRoundCpuMs} ms CPU, ` +
          `resident ${row.residentMb} MB (peak ${row.peakResidentMb} MB; heap ${row.heapUsedMb} MB, outside it ${row.externalMb} MB; ` +
          `after the sweeps ${row.residentAfterSweepsMb} MB) (${Object.entries(row.perSweepCpuMs)
            .map(([name, ms]) => `${name} ${ms}`)
            .join(', ')}; reconcile with ${changedMachines} machines changed ${row.reconcileChangedCpuMs} ms CPU; ` +
          `full resync ${row.resyncCpuMs} ms CPU; seeded in ${seedSeconds} s)`,
      );
      rows.push(row);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return rows;
}

if (import.meta.main) {
  const [step, dataDir, servers] = process.argv.slice(2);
  if (step === '--seed') {
    await seed(configOf(dataDir!), Number(servers));
    await seedRest(dataDir!);
    await settle(dataDir!);
  } else if (step === '--measure') {
    process.stdout.write(JSON.stringify(await measure(dataDir!, Number(servers))));
    process.exit(0);
  } else await benchFleet((step ?? '1000,1000000').split(',').map(Number));
}
