// Queries of the compute seam outside the job runner: the engine's waiting jobs (queued with the
// intent, in the caller's transaction), the server row an intent changes, the rows a desired
// machine and an egress policy are read from, and the first-boot script's outcome.

import type { Insertable } from 'kysely';
import type { Queryable, Tx } from '../db/database.ts';
import type { ServerRow, ServerUpdate } from './server-row.ts';
import type { JobAction } from './compute-driver.ts';
import type { ComputeJobTable } from './compute-job.table.ts';

export const computeRepository = {
  /** Queues `job`, replacing the waiting job of the same key (which goes to the back of the line). */
  async replaceJob(db: Queryable, job: Insertable<ComputeJobTable>): Promise<void> {
    await db.deleteFrom('compute_jobs').where('key', '=', job.key).execute();
    await db.insertInto('compute_jobs').values(job).execute();
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
  changeServer(trx: Tx, serverId: number, change: ServerUpdate): Promise<ServerRow> {
    // A machine changed (power, plan, disk) moves traffic differently: due at the overage sweep.
    return trx
      .updateTable('servers')
      .set((eb) => ({ ...change, overage_due_at: 0, overage_marks: eb('overage_marks', '+', 1) }))
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
    const servers = await db
      .selectFrom('servers')
      .selectAll()
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

  /** The rows every server's egress policy is read from: servers with their accounts' ports, addresses, floating IPs. */
  egressRows(db: Queryable) {
    return Promise.all([
      db
        .selectFrom('servers')
        .innerJoin('accounts', 'accounts.id', 'servers.account_id')
        .select(['servers.id', 'servers.uuid', 'servers.region_id', 'accounts.smtp', 'accounts.blocked_ports'])
        .orderBy('servers.id')
        .execute(),
      db
        .selectFrom('ip_addresses')
        .select(['holder_uuid', 'address', 'version'])
        .where('holder_type', '=', 'server')
        .execute(),
      db.selectFrom('floating_ips').select(['server_id', 'address']).where('server_id', 'is not', null).execute(),
    ]);
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
