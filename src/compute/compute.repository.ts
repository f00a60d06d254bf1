// Queries of the compute seam outside the job runner: the engine's waiting jobs (queued with the
// intent, in the caller's transaction), the server row an intent changes, the rows a desired
// machine and an egress policy are read from, and the first-boot script's outcome.

import type { Insertable } from 'kysely';
import type { Queryable, Tx } from '../db/database.ts';
import type { ServerRow, ServerUpdate } from './server-row.ts';
import type { Artifact, JobAction, Power } from './compute-driver.ts';
import type { ComputeJobTable } from './compute-job.table.ts';
import type { Transition } from './power-state.ts';
import { batches } from '../db/batches.ts';

/** A job as job-queue.ts decides it; jobRow makes its row. */
export interface NewJob {
  /** One waiting job per key (job-queue.ts says how it is made). */
  key: string;
  line: string;
  action: JobAction;
  /** The artifact an artifact's job makes or forgets, the host of a host's job; null for converge. */
  subject: Artifact | { host: string } | null;
  queuedAt: number;
}

/** The one mapping of a new job to its row: due at once, not tried, not held. */
function jobRow(job: NewJob): Insertable<ComputeJobTable> {
  return {
    key: job.key,
    line: job.line,
    action: job.action,
    payload: JSON.stringify(job.subject ?? {}),
    attempts: 0,
    run_at: job.queuedAt,
    locked_until: null,
    last_error: null,
    created_at: job.queuedAt,
  };
}

/**
 * What an intent writes to its server (machine-intents.ts decides each value, machine-fault.ts
 * ends a transition); a field left out keeps its column as it is. changedServerRow makes the update.
 */
export interface ChangedServer {
  power?: Power;
  /** The transition shown, and until when (null: none). */
  transition?: Transition | null;
  transitionUntil?: number | null;
  /** Why the engine failed the action (an injected compute failure). */
  engineError?: string;
  powerGeneration?: number;
  diskGeneration?: number;
  planId?: number;
  imageId?: number;
  /** The snapshot the new disk is restored from; null: from the image. */
  sourceSnapshotUuid?: string | null;
  passwordSealed?: string;
  rescue?: boolean;
  /** Null: a new disk's first-boot script outcome is read anew. */
  scriptOutcome?: null;
  updatedAt: number;
}

/** The one mapping of an intent's change to the columns it sets. */
function changedServerRow(change: ChangedServer): ServerUpdate {
  const row: ServerUpdate = {};
  if (change.imageId !== undefined) row.image_id = change.imageId;
  if (change.planId !== undefined) row.plan_id = change.planId;
  if (change.sourceSnapshotUuid !== undefined) row.source_snapshot_uuid = change.sourceSnapshotUuid;
  if (change.passwordSealed !== undefined) row.password_sealed = change.passwordSealed;
  if (change.rescue !== undefined) row.rescue = change.rescue ? 1 : 0;
  if (change.diskGeneration !== undefined) row.disk_generation = change.diskGeneration;
  if (change.scriptOutcome !== undefined) row.script_outcome = change.scriptOutcome;
  if (change.powerGeneration !== undefined) row.power_generation = change.powerGeneration;
  if (change.engineError !== undefined) row.engine_error = change.engineError;
  if (change.power !== undefined) row.power = change.power;
  if (change.transition !== undefined) row.action = change.transition;
  if (change.transitionUntil !== undefined) row.action_until = change.transitionUntil;
  row.updated_at = change.updatedAt;
  return row;
}

/** The columns of a server its desired machine is derived from (desired-machine.ts). */
export const specColumns = [
  'id',
  'uuid',
  'hostname',
  'region_id',
  'plan_id',
  'image_id',
  'power',
  'rescue',
  'power_generation',
  'disk_generation',
  'observed_disk_generation',
  'source_snapshot_uuid',
  'password_sealed',
  'script_url',
  'ssh_key_id',
  'throttled',
  'avoid_host',
] as const satisfies readonly (keyof ServerRow)[];

/** A server's row as its desired machine reads it. */
export type SpecRow = Pick<ServerRow, (typeof specColumns)[number]>;

export const computeRepository = {
  /** Queues `job`, replacing the waiting job of the same key (which goes to the back of the line). */
  async replaceJob(db: Queryable, job: NewJob): Promise<void> {
    await db.deleteFrom('compute_jobs').where('key', '=', job.key).execute();
    await db.insertInto('compute_jobs').values(jobRow(job)).execute();
  },

  /** Drops the line's jobs but those of `kept` actions and those held (locked) until after `nowMs` (real time). */
  async dropWaitingJobs(db: Queryable, line: string, kept: readonly JobAction[], nowMs: number): Promise<void> {
    await db
      .deleteFrom('compute_jobs')
      .where('line', '=', line)
      .where('action', 'not in', [...kept])
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', nowMs)]))
      .execute();
  },

  /** Writes an intent's change to the server's row; answers the row as updated. */
  changeServer(trx: Tx, serverId: number, change: ChangedServer): Promise<ServerRow> {
    // A machine changed (power, plan, disk) moves traffic differently: due at the overage sweep.
    return trx
      .updateTable('servers')
      .set((eb) => ({ ...changedServerRow(change), overage_due_at: 0, overage_marks: eb('overage_marks', '+', 1) }))
      .where('id', '=', serverId)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /** Puts the server before the overage sweep's next round: the traffic meter added to its month. */
  async markOverageDue(db: Queryable, uuid: string): Promise<void> {
    await db
      .updateTable('servers')
      .set((eb) => ({ overage_due_at: 0, overage_marks: eb('overage_marks', '+', 1) }))
      .where('uuid', '=', uuid)
      .execute();
  },

  /** The rows the desired machines of `uuids` are read from, one statement per table. */
  async specRows(db: Queryable, uuids: readonly string[]) {
    // The spec's columns alone: a full reconciliation reads every server's, and every column of
    // a million rows (selectAll) left the process far more resident than these.
    const servers = await db
      .selectFrom('servers')
      .select([...specColumns])
      .where('uuid', 'in', [...uuids])
      .execute();
    if (servers.length === 0) return null;
    const ids = servers.map((s) => s.id);
    const keyIds = servers.flatMap((s) => (s.ssh_key_id === null ? [] : [s.ssh_key_id]));
    const [addresses, floating, vpcs, keys] = await Promise.all([
      db
        .selectFrom('ip_addresses')
        .select(['holder_uuid', 'address', 'version'])
        .where('holder_type', '=', 'server')
        .where('holder_uuid', 'in', [...uuids])
        .execute(),
      db
        .selectFrom('floating_ips')
        .select(['server_id', 'address'])
        .where('server_id', 'in', ids)
        .orderBy('id')
        .execute(),
      db
        .selectFrom('vpc_members')
        .innerJoin('vpcs', 'vpcs.id', 'vpc_members.vpc_id')
        .select(['vpc_members.server_id', 'vpcs.uuid', 'vpcs.cidr', 'vpc_members.address'])
        .where('vpc_members.server_id', 'in', ids)
        .orderBy('vpcs.id')
        .execute(),
      keyIds.length
        ? db.selectFrom('ssh_keys').select(['id', 'public_key']).where('id', 'in', keyIds).execute()
        : Promise.resolve([]),
    ]);
    return { servers, addresses, floating, vpcs, keys };
  },

  async serverExists(db: Queryable, uuid: string): Promise<boolean> {
    return (await db.selectFrom('servers').select('id').where('uuid', '=', uuid).executeTakeFirst()) !== undefined;
  },

  /** The uuids among `uuids` a server holds, a thousand a statement. */
  async serversAmong(db: Queryable, uuids: readonly string[]): Promise<Set<string>> {
    const held = new Set<string>();
    for (const batch of batches(uuids, 1000))
      for (const { uuid } of await db.selectFrom('servers').select('uuid').where('uuid', 'in', batch).execute())
        held.add(uuid);
    return held;
  },

  /**
   * The rows the egress policy of `limit` servers after id `afterId` is read from: the servers
   * (in id order) with their accounts' ports, their addresses and their floating IPs.
   */
  async egressRows(db: Queryable, afterId: number, limit: number) {
    const servers = await db
      .selectFrom('servers')
      .innerJoin('accounts', 'accounts.id', 'servers.account_id')
      .select(['servers.id', 'servers.uuid', 'servers.region_id', 'accounts.smtp', 'accounts.blocked_ports'])
      .where('servers.id', '>', afterId)
      .orderBy('servers.id')
      .limit(limit)
      .execute();
    const addresses = [];
    const floating = [];
    for (const batch of batches(servers, 1000)) {
      addresses.push(
        ...(await db
          .selectFrom('ip_addresses')
          .select(['holder_uuid', 'address', 'version'])
          .where('holder_type', '=', 'server')
          .where(
            'holder_uuid',
            'in',
            batch.map((server) => server.uuid),
          )
          .execute()),
      );
      floating.push(
        ...(await db
          .selectFrom('floating_ips')
          .select(['server_id', 'address'])
          .where(
            'server_id',
            'in',
            batch.map((server) => server.id),
          )
          .execute()),
      );
    }
    return { servers, addresses, floating };
  },

  /** Servers with a first-boot script whose outcome is not known, not in a transition and with no job under way. */
  serversAwaitingScript(db: Queryable, now: number) {
    return db
      .selectFrom('servers')
      .select(['id', 'uuid', 'account_id', 'script_url'])
      .where('script_url', 'is not', null)
      .where('script_outcome', 'is', null)
      .where((eb) => eb.or([eb('action_until', 'is', null), eb('action_until', '<=', now)]))
      .where('uuid', 'not in', (eb) => eb.selectFrom('compute_jobs').select('line'))
      .execute();
  },

  /** Stores a script's outcome once; false when one was stored meanwhile. */
  async storeScriptOutcome(trx: Tx, serverId: number, outcome: string): Promise<boolean> {
    const written = await trx
      .updateTable('servers')
      .set({ script_outcome: outcome })
      .where('id', '=', serverId)
      .where('script_outcome', 'is', null)
      .executeTakeFirst();
    return Number(written.numUpdatedRows) === 1;
  },
};
