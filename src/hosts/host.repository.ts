// The queries of the hosts resource: the hosts as the engine last reported them, and what runs on
// each (servers by host and plan, the plans giving the capacity they use).

import type { Queryable } from '../db/database.ts';
import type { HostRow } from './host.table.ts';

export const hostRepository = {
  all(db: Queryable): Promise<HostRow[]> {
    return db.selectFrom('hosts').selectAll().orderBy('name').execute();
  },

  find(db: Queryable, name: string): Promise<HostRow | undefined> {
    return db.selectFrom('hosts').selectAll().where('name', '=', name).executeTakeFirst();
  },

  /** The hosts serving a region (simulated hosts carry their region). */
  inRegion(db: Queryable, regionId: number): Promise<HostRow[]> {
    return db.selectFrom('hosts').selectAll().where('region_id', '=', regionId).orderBy('name').execute();
  },

  /** Writes each host as reported (its status kept for a host already known when `keepStatus`). */
  async upsert(db: Queryable, rows: HostRow[], keepStatus = false): Promise<void> {
    for (const row of rows)
      await db
        .insertInto('hosts')
        .values(row)
        .onConflict((oc) =>
          oc.column('name').doUpdateSet({
            region_id: row.region_id,
            groups: row.groups,
            vcpus: row.vcpus,
            memory_bytes: row.memory_bytes,
            disk_bytes: row.disk_bytes,
            ...(keepStatus ? {} : { status: row.status, message: row.message, updated_at: row.updated_at }),
          }),
        )
        .execute();
  },

  /** Forgets the hosts the engine no longer reports. */
  async removeOthers(db: Queryable, keep: readonly string[]): Promise<void> {
    let query = db.deleteFrom('hosts');
    if (keep.length) query = query.where('name', 'not in', keep);
    await query.execute();
  },

  setStatus(db: Queryable, name: string, status: string, message: string, now: number) {
    return db
      .updateTable('hosts')
      .set({ status, message, updated_at: now })
      .where('name', '=', name)
      .returningAll()
      .executeTakeFirst();
  },

  /** A drain or restore given up on there (its reason), or null once one succeeded. */
  setFailure(db: Queryable, name: string, failure: string | null) {
    return db.updateTable('hosts').set({ failure }).where('name', '=', name).execute();
  },

  /** How many servers of each plan run on each host (servers not placed yet are left out). */
  async placements(db: Queryable, regionId?: number) {
    let query = db
      .selectFrom('servers')
      .select((eb) => ['host', 'plan_id', eb.fn.countAll<number | string>().as('count')])
      .where('host', 'is not', null)
      .groupBy(['host', 'plan_id']);
    if (regionId !== undefined) query = query.where('region_id', '=', regionId);
    const rows = await query.execute();
    return rows.map((row) => ({ host: row.host as string, planId: row.plan_id, count: Number(row.count) }));
  },

  /** The servers on a host, by id. */
  serversOn(db: Queryable, host: string) {
    return db
      .selectFrom('servers')
      .select(['id', 'uuid', 'account_id', 'region_id', 'plan_id', 'host', 'evacuated_from', 'conditions'])
      .where('host', '=', host)
      .orderBy('id')
      .execute();
  },

  /** The servers an evacuation moved off a host (simulated driver: restore brings them back). */
  evacuatedFrom(db: Queryable, host: string) {
    return db
      .selectFrom('servers')
      .select(['id', 'uuid', 'region_id', 'host'])
      .where('evacuated_from', '=', host)
      .orderBy('id')
      .execute();
  },

  setEvacuatedFrom(db: Queryable, serverId: number, host: string | null) {
    return db.updateTable('servers').set({ evacuated_from: host }).where('id', '=', serverId).execute();
  },

  /** The host a server's new machine must avoid (the recover action's spec). */
  setAvoidHost(db: Queryable, serverId: number, host: string | null) {
    return db.updateTable('servers').set({ avoid_host: host }).where('id', '=', serverId).execute();
  },
};
