// The compute job runner (real driver only): claims due jobs (FOR UPDATE SKIP LOCKED on
// PostgreSQL, so any number of instances share the queue), performs them through the engine
// after the intent has committed, settles the server from the engine's report, and retries a
// failure with back-off. Beside it, reconciliation: the engine's view of each idle machine wins.

import { recordUsage } from '../server-metrics/server-metric.service.ts';
import { sql } from 'kysely';
import type { Tx } from '../db/database.ts';
import { imageCompletedByEngine, serverPowerChanged, serverSettledByEngine } from '../events/resource-events.ts';
import type { Platform } from '../platform/context.ts';
import type { ComputeJobRow } from './compute-job.table.ts';
import { enforceEgress } from './egress-policy.ts';
import { collectScriptReports } from './script-reports.ts';
import type { Engine, EngineOutcome, MachineSpec } from './compute-driver.ts';
import { transaction } from '../db/transaction.ts';

const leaseMs = 10 * 60_000;

/** Delay before attempt `attempts + 1`: 1 s, 2 s, 4 s, ... at most 30 s. */
export function backoffMs(attempts: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempts - 1));
}

/** The server as the engine should make it, read now; null once the server is gone. */
export async function machineSpec(ctx: Platform, serverUuid: string): Promise<MachineSpec | null> {
  const server = await ctx.db.selectFrom('servers').selectAll().where('uuid', '=', serverUuid).executeTakeFirst();
  if (!server) return null;
  const region = ctx.catalog.regions.get(server.region_id);
  const plan = ctx.catalog.plans.get(server.plan_id);
  const image = ctx.catalog.images.get(server.image_id);
  if (!region || !plan || !image) throw new Error(`server ${serverUuid}: its region, plan or image left the catalog`);
  const [addresses, floating, vpcs, key] = await Promise.all([
    ctx.db
      .selectFrom('ip_addresses')
      .select(['address', 'version'])
      .where('holder_uuid', '=', serverUuid)
      .where('holder_type', '=', 'server')
      .execute(),
    ctx.db.selectFrom('floating_ips').select('address').where('server_id', '=', server.id).execute(),
    ctx.db
      .selectFrom('vpc_members')
      .innerJoin('vpcs', 'vpcs.id', 'vpc_members.vpc_id')
      .select(['vpcs.uuid', 'vpcs.cidr', 'vpc_members.address'])
      .where('vpc_members.server_id', '=', server.id)
      .orderBy('vpcs.id')
      .execute(),
    server.ssh_key_id === null
      ? undefined
      : ctx.db.selectFrom('ssh_keys').select('public_key').where('id', '=', server.ssh_key_id).executeTakeFirst(),
  ]);
  return {
    uuid: server.uuid,
    hostname: server.hostname,
    region,
    plan,
    image,
    power: server.power === 'stopped' ? 'stopped' : 'running',
    rescue: server.rescue === 1,
    rootPassword: ctx.secrets.decrypt(server.password_sealed),
    sshPublicKey: key?.public_key ?? null,
    scriptUrl: server.script_url,
    ipv4: addresses.find((a) => a.version === 4)?.address ?? null,
    ipv6: addresses.find((a) => a.version === 6)?.address ?? null,
    floating: floating.map((f) => f.address),
    vpcs,
    sourceSnapshot: server.source_snapshot_uuid,
    throttle: server.throttled === 1 ? ctx.config.throttleRate : null,
  };
}

/** Jobs that make a server's disk from a snapshot (its source_snapshot_uuid). */
const fromSnapshot = ['provisioning', 'restoring'];
/** Jobs that make a snapshot's engine copy. */
const copying = ['snapshotting', 'backup'];

/** A job key that names the snapshot `column` holds (`<server>:<action>:<snapshot>[#id]`). */
const namesSnapshotOf = (column: string) => sql<string>`'%:' || ${sql.ref(column)} || '%'`;

/**
 * Takes the next due job, if any, for this instance to run: the first of its server's line, with
 * no other job of that server being performed (a machine does one thing at a time, in order).
 * Across lines, a snapshot used by another server is made before that server's disk is made from
 * it, and forgotten only after: a server created or restored from a snapshot still being copied
 * (or removed meanwhile) gets it. Neither wait outlasts COMPUTE_ACTION_TIMEOUT_SECONDS.
 */
async function claim(ctx: Platform): Promise<ComputeJobRow | null> {
  return transaction(ctx, async (trx) => {
    const now = ctx.clock.now();
    // A lease is real time: a jump of the virtual clock must not hand a job being performed to another.
    const wall = Date.now();
    const waitMs = ctx.config.computeActionTimeoutSeconds * 1000;
    let query = trx
      .selectFrom('compute_jobs')
      .selectAll()
      .where('run_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', wall)]))
      .where(({ not, exists, selectFrom, or }) =>
        not(
          exists(
            selectFrom('compute_jobs as other')
              .select('other.id')
              .whereRef('other.server_uuid', '=', 'compute_jobs.server_uuid')
              .where((o) => or([o('other.id', '<', o.ref('compute_jobs.id')), o('other.locked_until', '>', wall)])),
          ),
        ),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom(['servers as target', 'compute_jobs as copy'])
              .select('copy.id')
              .whereRef('target.uuid', '=', 'compute_jobs.server_uuid')
              .where('compute_jobs.action', 'in', fromSnapshot)
              .where('compute_jobs.created_at', '>', now - waitMs)
              .where('copy.action', 'in', copying)
              .where('copy.key', 'like', namesSnapshotOf('target.source_snapshot_uuid')),
          ),
        ),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom(['compute_jobs as use', 'servers as target'])
              .select('use.id')
              .whereRef('target.uuid', '=', 'use.server_uuid')
              .where('use.action', 'in', fromSnapshot)
              .where('compute_jobs.action', '=', 'forget-snapshot')
              .where('compute_jobs.created_at', '>', now - waitMs)
              .where('compute_jobs.key', 'like', namesSnapshotOf('target.source_snapshot_uuid')),
          ),
        ),
      )
      .orderBy('run_at')
      .orderBy('id')
      .limit(1);
    if (ctx.dialect === 'postgres') query = query.forUpdate().skipLocked();
    const job = await query.executeTakeFirst();
    if (!job) return null;
    const attempts = job.attempts + 1;
    await trx
      .updateTable('compute_jobs')
      .set({ locked_until: wall + leaseMs, attempts, key: `${job.key}#${job.id}` })
      .where('id', '=', job.id)
      .execute();
    return { ...job, attempts, locked_until: wall + leaseMs, key: `${job.key}#${job.id}` };
  });
}

/**
 * The same action asked again for the server after this job (a second snapshot while the first is
 * copied): the transition shown is that one's, and ends when it reports.
 */
function laterAsked(trx: Tx, job: ComputeJobRow) {
  return trx
    .selectFrom('compute_jobs')
    .select('id')
    .where('server_uuid', '=', job.server_uuid)
    .where('action', '=', job.action)
    .where('id', '>', job.id);
}

/** The job ended the server's transition: its end is an event now, as the server was left. */
async function transitionEnded(ctx: Platform, trx: Tx, job: ComputeJobRow): Promise<void> {
  const server = await trx.selectFrom('servers').selectAll().where('uuid', '=', job.server_uuid).executeTakeFirst();
  if (server) await serverSettledByEngine(ctx, trx, server, job.action);
}

/** The job done: the server settles as the engine reports, and the job goes (unless asked again meanwhile). */
async function settle(ctx: Platform, job: ComputeJobRow, outcome: EngineOutcome): Promise<void> {
  const payload = JSON.parse(job.payload) as { snapshot?: string };
  await transaction(ctx, async (trx) => {
    const now = ctx.clock.now();
    const ended = await trx
      .updateTable('servers')
      .set({
        action_until: now,
        engine_error: null,
        updated_at: now,
        ...(outcome.power ? { power: outcome.power } : {}),
      })
      .where('uuid', '=', job.server_uuid)
      .where('action', '=', job.action)
      .where('action_until', '>', now)
      .where(({ not, exists }) => not(exists(laterAsked(trx, job))))
      .executeTakeFirst();
    if (outcome.power)
      await trx
        .updateTable('servers')
        .set({ power: outcome.power, engine_error: null })
        .where('uuid', '=', job.server_uuid)
        .where((eb) => eb.or([eb('action_until', 'is', null), eb('action_until', '<=', now)]))
        .execute();
    if (Number(ended.numUpdatedRows) > 0) await transitionEnded(ctx, trx, job);
    if (payload.snapshot && job.action !== 'forget-snapshot') {
      const copied = await trx
        .updateTable('snapshots')
        .set({ ready_at: now, ...(outcome.sizeGb ? { size_gb: outcome.sizeGb } : {}) })
        .where('uuid', '=', payload.snapshot)
        .where('ready_at', '>', now)
        .executeTakeFirst();
      if (Number(copied.numUpdatedRows) > 0) {
        const image = await trx
          .selectFrom('snapshots')
          .select(['uuid', 'account_id', 'type'])
          .where('uuid', '=', payload.snapshot)
          .executeTakeFirstOrThrow();
        await imageCompletedByEngine(ctx, trx, image);
      }
    }
    await trx.deleteFrom('compute_jobs').where('id', '=', job.id).where('attempts', '=', job.attempts).execute();
  });
}

/**
 * The job failed: tried again after a back-off, or, out of attempts, dropped with the reason on
 * the server (engine_error) and the transition ended; a failed provisioning settles stopped.
 */
async function fail(ctx: Platform, job: ComputeJobRow, error: unknown): Promise<void> {
  const message = (error as Error).message ?? String(error);
  const now = ctx.clock.now();
  if (job.attempts < ctx.config.computeJobAttempts) {
    ctx.log.warn(
      { server: job.server_uuid, action: job.action, attempt: job.attempts, err: message },
      'compute job failed; retrying',
    );
    await ctx.db
      .updateTable('compute_jobs')
      .set({ run_at: now + backoffMs(job.attempts), locked_until: null, last_error: message })
      .where('id', '=', job.id)
      .where('attempts', '=', job.attempts)
      .execute();
    return;
  }
  ctx.log.error(
    { server: job.server_uuid, action: job.action, attempts: job.attempts, err: message },
    'compute job gave up',
  );
  await transaction(ctx, async (trx) => {
    const reason = `${job.action} failed after ${job.attempts} attempts: ${message}`.slice(0, 2000);
    await trx.updateTable('servers').set({ engine_error: reason }).where('uuid', '=', job.server_uuid).execute();
    const ended = await trx
      .updateTable('servers')
      .set({
        action_until: now,
        updated_at: now,
        ...(job.action === 'provisioning' ? { power: 'stopped' } : {}),
      })
      .where('uuid', '=', job.server_uuid)
      .where('action', '=', job.action)
      .where('action_until', '>', now)
      .where(({ not, exists }) => not(exists(laterAsked(trx, job))))
      .executeTakeFirst();
    if (Number(ended.numUpdatedRows) > 0) await transitionEnded(ctx, trx, job);
    await trx.deleteFrom('compute_jobs').where('id', '=', job.id).where('attempts', '=', job.attempts).execute();
  });
}

/** Actions after which a machine may send from addresses the blocked-port rules do not name yet. */
const egressActions = new Set(['provisioning', 'rebuilding', 'reinstalling', 'restoring', 'network']);

async function perform(ctx: Platform, engine: Engine, job: ComputeJobRow): Promise<void> {
  try {
    const spec = await machineSpec(ctx, job.server_uuid);
    // A machine made or re-addressed is filtered before it runs, not from the next reconciliation on.
    if (spec && egressActions.has(job.action)) await enforceEgress(ctx);
    // Work on snapshots needs no server row: a copy is taken (and forgotten) after its server went.
    const outcome =
      spec || ['remove', 'forget-snapshot', 'snapshotting'].includes(job.action)
        ? await engine.perform(job.action, job.server_uuid, spec, JSON.parse(job.payload) as Record<string, unknown>)
        : {};
    await settle(ctx, job, outcome);
  } catch (error) {
    await fail(ctx, job, error).catch((failure: unknown) =>
      ctx.log.error({ err: (failure as Error).message }, 'compute job: recording a failure failed; the lease expires'),
    );
  }
}

/**
 * Reconciliation: each server with no transition and no job under way takes the power the engine
 * reports (a machine stopped outside Nubis shows stopped, with a server.power event); a machine the
 * engine lost is noted.
 */
export async function reconcile(ctx: Platform): Promise<number> {
  const engine = ctx.compute.engine;
  if (!engine) return 0;
  const seen = await engine.observe();
  // An operator's change of an account's smtp or blocked ports reaches its running servers here.
  await enforceEgress(ctx).catch((error: unknown) =>
    ctx.log.warn({ err: (error as Error).message }, 'blocked ports: the engine refused the rules; next round retries'),
  );
  await collectScriptReports(ctx);
  const now = ctx.clock.now();
  // The usage graphs' samples: what the engine read of each instance this round.
  await recordUsage(ctx, seen, now).catch((error: unknown) =>
    ctx.log.warn({ err: (error as Error).message }, 'recording usage samples failed; the next round reads again'),
  );
  const rows = await ctx.db
    .selectFrom('servers')
    .select(['id', 'uuid', 'power', 'engine_error'])
    .where((eb) => eb.or([eb('action_until', 'is', null), eb('action_until', '<=', now)]))
    .where('uuid', 'not in', (eb) => eb.selectFrom('compute_jobs').select('server_uuid'))
    .execute();
  let corrected = 0;
  for (const row of rows) {
    const machine = seen.get(row.uuid);
    const update = machine
      ? machine.power !== row.power
        ? { power: machine.power }
        : null
      : row.engine_error === null
        ? { engine_error: 'the engine has no machine for this server' }
        : null;
    if (!update) continue;
    corrected += await transaction(ctx, async (trx) => {
      const result = await trx
        .updateTable('servers')
        .set({ ...update, updated_at: now })
        .where('id', '=', row.id)
        .where((eb) => eb.or([eb('action_until', 'is', null), eb('action_until', '<=', now)]))
        .where('uuid', 'not in', (eb) => eb.selectFrom('compute_jobs').select('server_uuid'))
        .executeTakeFirst();
      const changed = Number(result.numUpdatedRows);
      // A machine stopped (or started) outside Nubis: the events tell it too.
      if (changed && update.power) {
        const server = await trx.selectFrom('servers').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
        await serverPowerChanged(ctx, trx, server, update.power, 'the engine reported it');
      }
      return changed;
    });
  }
  return corrected;
}

/** Runs jobs (up to COMPUTE_JOB_CONCURRENCY at once) and reconciles every COMPUTE_RECONCILE_SECONDS. */
export function startJobRunner(ctx: Platform): { stop(): Promise<void> } {
  const engine = ctx.compute.engine;
  if (!engine) return { stop: async () => {} };
  const running = new Set<Promise<void>>();
  let stopped = false;
  let lastReconcile = 0;
  let reconciling: Promise<void> | null = null;

  const tick = async () => {
    while (!stopped && running.size < ctx.config.computeJobConcurrency) {
      const job = await claim(ctx).catch((error: unknown) => {
        ctx.log.warn({ err: (error as Error).message }, 'compute job claim failed');
        return null;
      });
      if (!job) break;
      const work = perform(ctx, engine, job).finally(() => running.delete(work));
      running.add(work);
    }
    if (!stopped && !reconciling && Date.now() - lastReconcile >= ctx.config.computeReconcileSeconds * 1000) {
      lastReconcile = Date.now();
      reconciling = reconcile(ctx)
        .then(
          (corrected) => {
            if (corrected) ctx.log.info({ corrected }, 'reconciliation corrected servers from the engine');
          },
          (error: unknown) =>
            ctx.log.warn({ err: (error as Error).message }, 'reconciliation failed; next round retries'),
        )
        .finally(() => {
          reconciling = null;
        });
    }
  };
  let ticking: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (!ticking)
      ticking = tick().finally(() => {
        ticking = null;
      });
  }, 200);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await ticking;
      await reconciling;
      await Promise.allSettled([...running]);
      engine.close();
    },
  };
}
