// Queries on ip_addresses: taking the first free of a few offered addresses in one statement,
// the addresses a pool has handed out, and an address holder's release.

import { sql } from 'kysely';
import type { Queryable } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';

/** Addresses offered to one insert, which takes the first of them that is free. */
export const offeredPerInsert = 16;

// Every server create takes an address: prepared. One statement tries all the offered addresses
// (the first free one, read in the statement's snapshot), so a pool that is filling up costs a
// create one round trip, not one per taken address it happens to pick. An address taken by a
// transaction not yet committed is caught by the unique (pool, address) index: no row, try again.
const insertFirstFree = prepared<unknown[], { address: string }>(
  7 + offeredPerInsert,
  (db, pool, version, regionId, accountId, holderType, holderUuid, createdAt, ...offered) => {
    const candidates = sql.join(offered.map((address) => sql`(${address})`));
    // All taken: the first one, which the index then refuses.
    const firstFree = sql<string>`coalesce((select c.column1 from (values ${candidates}) as c where not exists (select 1 from ip_addresses as t where t.pool = ${pool} and t.address = c.column1) limit 1), ${offered[0]})`;
    return db
      .insertInto('ip_addresses')
      .values({
        pool: pool as string,
        address: firstFree,
        version: version as number,
        region_id: regionId as number,
        account_id: accountId as number,
        holder_type: holderType as string,
        holder_uuid: holderUuid as string,
        created_at: createdAt as number,
      })
      .onConflict((oc) => oc.columns(['pool', 'address']).doNothing())
      .returning('address');
  },
);

export const ipAddressRepository = {
  /** Inserts the first of `offered` (exactly offeredPerInsert) that is free; null when none was. */
  async insertFirstFree(
    db: Queryable,
    pool: string,
    version: number,
    regionId: number,
    accountId: number,
    holderType: string,
    holderUuid: string,
    createdAt: number,
    offered: string[],
  ): Promise<string | null> {
    const row = await insertFirstFree.first(
      db,
      pool,
      version,
      regionId,
      accountId,
      holderType,
      holderUuid,
      createdAt,
      ...offered,
    );
    return row?.address ?? null;
  },

  async takenAddresses(db: Queryable, pool: string): Promise<string[]> {
    const rows = await db.selectFrom('ip_addresses').select('address').where('pool', '=', pool).execute();
    return rows.map((row) => row.address);
  },

  /** Returns every address the holder has to its pool. */
  async releaseHolder(db: Queryable, holderUuid: string): Promise<void> {
    await db.deleteFrom('ip_addresses').where('holder_uuid', '=', holderUuid).execute();
  },
};
