// `npm run bench -- --only fleet`: what a round of the periodic sweeps, and a round of the engine's
// reconciliation, cost as the fleet grows. For each size it seeds a SQLite database with that many
// running servers (100 an account, each with its open invoice item, every account in credit:
// nothing is due), opens the platform in this process as `nubis sweep` does, runs one round to
// warm up, then measures the CPU of the next round and of each sweep in it. The reconciliation
// runs against an engine stand-in that answers as the informer-fed LXD driver does
// (test/support/engine-stand-in.ts): a round with nothing heard, then one with 100 machines
// changed. A round with nothing due must cost the same at every size.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { createPlatform, prepareStorage } from '../src/instance.ts';
import { sweeps } from '../src/sweeps/sweeps.ts';
import { seed } from './seed.ts';
import { reconcile } from '../src/compute/job-runner.ts';
import { EngineStandIn, standInDriver } from '../test/support/engine-stand-in.ts';
import type { Platform } from '../src/platform/context.ts';

export interface FleetRow {
  servers: number;
  sweepRoundCpuMs: number;
  perSweepCpuMs: Record<string, number>;
  /** A reconciliation with no change heard, and one with `changedMachines` machines changed. */
  reconcileRoundCpuMs: number;
  reconcileChangedCpuMs: number;
  residentMb: number;
  seedSeconds: number;
}

const quiet = { info() {}, warn() {}, error() {}, debug() {}, fatal() {}, trace() {}, child: () => quiet };

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/** Open invoice items for every seeded server and a credit for every account, straight in SQL. */
async function seedBilling(dataDir: string): Promise<void> {
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(join(dataDir, 'nubis.db'));
  const now = Date.now();
  db.exec('begin');
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
  db.exec('commit');
  db.close();
}

const changedMachines = 100;

/**
 * The CPU of a reconciliation round against the stand-in: one with nothing heard (after a warm-up
 * round), then one in which `changedMachines` servers' machines were heard to change (stopped
 * outside Nubis: each is read, and its status and a server.power event written).
 */
async function reconcileRounds(
  platform: Platform,
): Promise<{ reconcileRoundCpuMs: number; reconcileChangedCpuMs: number }> {
  const engine = new EngineStandIn();
  const ctx: Platform = { ...platform, compute: standInDriver(engine) };
  // The informer has listened since its last full read: its first answer is spent here.
  engine.changes();
  await reconcile(ctx);
  const quiet = process.cpuUsage();
  await reconcile(ctx);
  const reconcileRoundCpuMs = Math.round(cpuMs(quiet) * 10) / 10;
  const some = await ctx.db.selectFrom('servers').select('uuid').orderBy('id').limit(changedMachines).execute();
  for (const { uuid } of some) engine.set(uuid, { power: 'stopped', diskGeneration: 0, powerGeneration: 0 });
  const changed = process.cpuUsage();
  await reconcile(ctx);
  const reconcileChangedCpuMs = Math.round(cpuMs(changed) * 10) / 10;
  if (engine.read !== changedMachines) throw new Error(`the changed round read ${engine.read} machines`);
  return { reconcileRoundCpuMs, reconcileChangedCpuMs };
}

export async function benchFleet(sizes: number[]): Promise<FleetRow[]> {
  const rows: FleetRow[] = [];
  for (const servers of sizes) {
    const dataDir = mkdtempSync(join(tmpdir(), 'nubis-fleet-'));
    try {
      const config = loadConfig({
        ...process.env,
        DATA_DIR: dataDir,
        SECRET_KEY: randomBytes(32).toString('hex'),
        LOG_LEVEL: 'silent',
        DATABASE_URL: '',
        REDIS_URL: '',
      });
      const seeded = performance.now();
      await seed(config, servers);
      await seedBilling(dataDir);
      const seedSeconds = (performance.now() - seeded) / 1000;
      const storage = await prepareStorage(config, quiet as never);
      const ctx = await createPlatform(config, storage, quiet as never);
      for (const sweep of sweeps) await sweep.run(ctx);
      const perSweepCpuMs: Record<string, number> = {};
      const round = process.cpuUsage();
      for (const sweep of sweeps) {
        const started = process.cpuUsage();
        await sweep.run(ctx);
        perSweepCpuMs[sweep.name] = Math.round(cpuMs(started) * 10) / 10;
      }
      const sweepRoundCpuMs = Math.round(cpuMs(round) * 10) / 10;
      const { reconcileRoundCpuMs, reconcileChangedCpuMs } = await reconcileRounds(ctx);
      const residentMb = Math.round(process.memoryUsage().rss / 2 ** 20);
      await storage.close();
      const row = {
        servers,
        sweepRoundCpuMs,
        perSweepCpuMs,
        reconcileRoundCpuMs,
        reconcileChangedCpuMs,
        residentMb,
        seedSeconds: Math.round(seedSeconds),
      };
      console.log(
        `fleet: ${servers} servers: sweep round ${sweepRoundCpuMs} ms CPU, reconcile round ${reconcileRoundCpuMs} ms CPU, resident ${residentMb} MB (${Object.entries(
          perSweepCpuMs,
        )
          .map(([name, ms]) => `${name} ${ms}`)
          .join(
            ', ',
          )}; reconcile with ${changedMachines} machines changed ${reconcileChangedCpuMs} ms CPU; seeded in ${row.seedSeconds} s)`,
      );
      rows.push(row);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return rows;
}

if (import.meta.main) {
  const sizes = (process.argv[2] ?? '1000,1000000').split(',').map(Number);
  await benchFleet(sizes);
}
