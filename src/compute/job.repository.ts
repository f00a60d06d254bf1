// Queries of the compute job runner (job-runner.ts): claiming the next due job (FOR UPDATE SKIP
// LOCKED on PostgreSQL, so any number of instances share the queue), its lease, settling the
// server and the snapshot the engine reported on, and reconciliation's reads and corrections.
// Every write that settles a job is conditional on the attempt it performed (`attempts`), so an
// instance whose lease expired changes nothing.

import { type ExpressionBuilder, sql } from 'kysely';
import type { Database, DialectName, Queryable, Tx } from '../db/database.ts';
import type { ServerRow, ServerUpdate } from './server-row.ts';
import type { ComputeJobRow } from './compute-job.table.ts';
import { convergeJob, copyingArtifacts, forgettingImage } from './compute-driver.ts';
import type { Transition } from './power-state.ts';
import { batches } from '../db/batches.ts';

/** A job key that names the snapshot `column` holds (`<line>:<action>:<snapshot>[#id]`). */
const namesSnapshotOf = (column: string) => sql<string>`'%:' || ${sql.ref(column)} || '%'`;

/** A claimed job's lease (real-time ms), its attempt and its key as performed; jobLeaseRow makes the update. */
export interface JobLease {
  lockedUntil: number;
  attempts: number;
  key: string;
}

/** The one mapping of a lease to the job's columns. */
function jobLeaseRow(lease: JobLease): Pick<ComputeJobRow, 'locked_until' | 'attempts' | 'key'> {
  return { locked_until: lease.lockedUntil, attempts: lease.attempts, key: lease.key };
}

/** A transition the engine ended at `at`; a job that succeeded also clears the engine error. */
export interface TransitionEnd {
  at: number;
  engineErrorCleared: boolean;
}

/** The one mapping of a transition's end to the server's columns. */
function transitionEndRow(end: TransitionEnd): ServerUpdate {
  return { action_until: end.at, updated_at: end.at, ...(end.engineErrorCleared ? { engine_error: null } : {}) };
}

/** What the engine reports of a server's machine (absent: unchanged). */
export interface ObservedMachine {
  power?: ServerRow['observed_power'];
  host?: string | null;
  /** The disk generation the machine was made for. */
  diskGeneration?: number | null;
  powerGeneration?: number | null;
}

/** A change of a server's status (never its spec) from an engine report; statusRow makes the update. */
export interface StatusChange {
  /** Only the observed values that differ from the row's. */
  observed: ObservedMachine;
  /** Absent: unchanged. */
  engineError?: string | null;
  /** The conditions as stored (JSON array, machine-conditions.ts). */
  conditions: string | null;
}

/** The one mapping of a status change to the server's columns. */
function statusRow(change: StatusChange): ServerUpdate {
  const { observed } = change;
  return {
    ...(observed.power !== undefined ? { observed_power: observed.power } : {}),
    ...(observed.host !== undefined ? { host: observed.host } : {}),
    ...(observed.diskGeneration !== undefined ? { observed_disk_generation: observed.diskGeneration } : {}),
    ...(observed.powerGeneration !== undefined ? { observed_power_generation: observed.powerGeneration } : {}),
    ...(change.engineError !== undefined ? { engine_error: change.engineError } : {}),
    conditions: change.conditions,
  };
}

/** The job as performed: its id and the attempt, which every settling write is conditional on. */
type Attempt = Pick<ComputeJobRow, 'id' | 'attempts'>;

/**
 * The same action asked again in the job's line after it (the spec changed again, a second
 * snapshot): the transition shown is that one's, and ends when it reports.
 */
function laterAsked(trx: Tx, job: Pick<ComputeJobRow, 'id' | 'line' | 'action'>) {
  return trx
    .selectFrom('compute_jobs')
    .select('id')
    .where('line', '=', job.line)
    .where('action', '=', job.action)
    .where('id', '>', job.id);
}

/** No transition under way at `now` and no job waiting or performed in the server's line. */
const idleAt = (now: number) => (eb: ExpressionBuilder<Database, 'servers'>) =>
  eb.and([
    eb.or([eb('action_until', 'is', null), eb('action_until', '<=', now)]),
    eb('uuid', 'not in', eb.selectFrom('compute_jobs').select('line')),
  ]);

/** A server's status: what the engine's reports write (machine-status.ts) and are compared with. */
const statusColumns = [
  'engine_error',
  'observed_power',
  'observed_disk_generation',
  'observed_power_generation',
  'host',
  'conditions',
] as const;

export const jobRepository = {
  /**
   * The next due job, locked (PostgreSQL, skipping held ones): the first of its line, with no
   * other job of that line being performed. Across lines, a snapshot used by another server is made
   * before that server's machine converges, and forgotten only after; neither wait outlasts `waitMs`.
   */
  nextDue(
    dialect: DialectName,
    trx: Tx,
    at: { now: number; wall: number; waitMs: number },
  ): Promise<ComputeJobRow | undefined> {
    const { now, wall, waitMs } = at;
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
              .whereRef('other.line', '=', 'compute_jobs.line')
              .where((o) => or([o('other.id', '<', o.ref('compute_jobs.id')), o('other.locked_until', '>', wall)])),
          ),
        ),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom(['servers as target', 'compute_jobs as copy'])
              .select('copy.id')
              .whereRef('target.uuid', '=', 'compute_jobs.line')
              .where('compute_jobs.action', '=', convergeJob)
              .where('compute_jobs.created_at', '>', now - waitMs)
              .where('copy.action', 'in', [...copyingArtifacts])
              .where('copy.key', 'like', namesSnapshotOf('target.source_snapshot_uuid')),
          ),
        ),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom(['compute_jobs as use', 'servers as target'])
              .select('use.id')
              .whereRef('target.uuid', '=', 'use.line')
              .where('use.action', '=', convergeJob)
              .where('compute_jobs.action', '=', forgettingImage)
              .where('compute_jobs.created_at', '>', now - waitMs)
              .where('compute_jobs.key', 'like', namesSnapshotOf('target.source_snapshot_uuid')),
          ),
        ),
      )
      .orderBy('run_at')
      .orderBy('id')
      .limit(1);
    if (dialect === 'postgres') query = query.forUpdate().skipLocked();
    return query.executeTakeFirst();
  },

  /** The claimed job's lease, attempt and key (suffixed while performed). */
  async lease(trx: Tx, id: number, lease: JobLease): Promise<void> {
    await trx.updateTable('compute_jobs').set(jobLeaseRow(lease)).where('id', '=', id).execute();
  },

  /** A sign of life from the instance performing the job. */
  async renewLease(db: Queryable, job: Attempt, lockedUntil: number): Promise<void> {
    await db
      .updateTable('compute_jobs')
      .set({ locked_until: lockedUntil })
      .where('id', '=', job.id)
      .where('attempts', '=', job.attempts)
      .execute();
  },

  /** The job failed: run it again from `runAt`. */
  async retryLater(db: Queryable, job: Attempt, runAt: number, error: string): Promise<void> {
    await db
      .updateTable('compute_jobs')
      .set({ run_at: runAt, locked_until: null, last_error: error })
      .where('id', '=', job.id)
      .where('attempts', '=', job.attempts)
      .execute();
  },

  async deleteJob(trx: Tx, job: Attempt): Promise<void> {
    await trx.deleteFrom('compute_jobs').where('id', '=', job.id).where('attempts', '=', job.attempts).execute();
  },

  /**
   * Ends the transition under way of the job's server (`own`, or any but `artifactTransitions`'
   * when null), unless the job was asked again since; answers the server as ended.
   */
  endTransition(
    trx: Tx,
    job: ComputeJobRow,
    own: Transition | null,
    artifactTransitions: readonly Transition[],
    end: TransitionEnd,
    now: number,
  ): Promise<ServerRow | undefined> {
    let query = trx
      .updateTable('servers')
      .set(transitionEndRow(end))
      .where('uuid', '=', job.line)
      .where('action_until', '>', now)
      .where(({ not, exists }) => not(exists(laterAsked(trx, job))));
    query = own
      ? query.where('action', '=', own)
      : query.where((eb) => eb.or([eb('action', 'is', null), eb('action', 'not in', artifactTransitions)]));
    return query.returningAll().executeTakeFirst();
  },

  /** A failed provisioning leaves its server stopped. */
  stopServer(trx: Tx, serverId: number): Promise<ServerRow> {
    return trx
      .updateTable('servers')
      .set({ power: 'stopped' })
      .where('id', '=', serverId)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /** A snapshot's copy completed now (at the size the engine reports); undefined when it was already. */
  completeCopy(trx: Tx, snapshotUuid: string, now: number, sizeGb: number | undefined) {
    return trx
      .updateTable('snapshots')
      .set({ ready_at: now, ...(sizeGb ? { size_gb: sizeGb } : {}) })
      .where('uuid', '=', snapshotUuid)
      .where('ready_at', '>', now)
      .returning(['uuid', 'account_id', 'type'])
      .executeTakeFirst();
  },

  /** The transition under way on the job's server, if any. */
  serverAction(trx: Tx, serverUuid: string) {
    return trx
      .selectFrom('servers')
      .select(['action', 'action_until'])
      .where('uuid', '=', serverUuid)
      .executeTakeFirst();
  },

  async setEngineError(trx: Tx, serverUuid: string, reason: string): Promise<void> {
    await trx.updateTable('servers').set({ engine_error: reason }).where('uuid', '=', serverUuid).execute();
  },

  /** The lines (server uuids, mostly) with a job waiting or under way: a removal still to reach the engine, say. */
  async busyLines(db: Queryable): Promise<Set<string>> {
    return new Set((await db.selectFrom('compute_jobs').select('line').distinct().execute()).map((j) => j.line));
  },

  /**
   * Servers with no transition under way and no job in their line (what reconciliation may
   * correct), `limit` of them after id `afterId`, in id order.
   */
  idleServers(db: Queryable, now: number, afterId: number, limit: number) {
    return db
      .selectFrom('servers')
      .select(['id', 'uuid', 'power', 'disk_generation', ...statusColumns])
      .where('id', '>', afterId)
      .where(idleAt(now))
      .orderBy('id')
      .limit(limit)
      .execute();
  },

  /** The idle servers among `uuids` (those the engine's events named), a thousand a statement. */
  async idleServersAmong(db: Queryable, now: number, uuids: readonly string[]) {
    const rows = [];
    for (const batch of batches(uuids, 1000))
      rows.push(
        ...(await db
          .selectFrom('servers')
          .select(['id', 'uuid', 'power', 'disk_generation', ...statusColumns])
          .where('uuid', 'in', batch)
          .where(idleAt(now))
          .execute()),
      );
    return rows;
  },

  /** Servers' uuids with their conditions (what an unreachable engine marks), `limit` after id `afterId`, in id order. */
  serverConditions(db: Queryable, afterId: number, limit: number) {
    return db
      .selectFrom('servers')
      .select(['id', 'uuid', 'conditions'])
      .where('id', '>', afterId)
      .orderBy('id')
      .limit(limit)
      .execute();
  },

  /** A server's status as last written (its conditions are what `writeStatus` compares and sets). */
  serverStatus(trx: Tx, serverUuid: string) {
    return trx
      .selectFrom('servers')
      .select(['id', 'uuid', 'account_id', 'disk_generation', ...statusColumns])
      .where('uuid', '=', serverUuid)
      .executeTakeFirst();
  },

  /**
   * The engine's report written into the status columns (never the spec's), if the conditions and
   * the host are still as read (compare-and-set: of two reports at once, the one that read first
   * loses and its round reports again, so a move or a loss is told once); answers the server as written.
   */
  writeStatus(
    trx: Tx,
    serverId: number,
    read: { conditions: string | null; host: string | null },
    change: StatusChange,
  ): Promise<ServerRow | undefined> {
    return trx
      .updateTable('servers')
      .set(statusRow(change))
      .where('id', '=', serverId)
      .where((eb) => (read.conditions === null ? eb('conditions', 'is', null) : eb('conditions', '=', read.conditions)))
      .where((eb) => (read.host === null ? eb('host', 'is', null) : eb('host', '=', read.host)))
      .returningAll()
      .executeTakeFirst();
  },

  /** Reconciliation's correction, if the server is still idle; answers it as corrected. */
  correctIdle(trx: Tx, serverId: number, now: number): Promise<ServerRow | undefined> {
    return trx
      .updateTable('servers')
      .set({ updated_at: now })
      .where('id', '=', serverId)
      .where(idleAt(now))
      .returningAll()
      .executeTakeFirst();
  },
};
