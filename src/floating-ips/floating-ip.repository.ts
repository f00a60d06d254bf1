// Queries on floating IPs. Attach, detach and remove are conditional updates (on the
// attachment they expect), so two concurrent requests cannot both win.

import type { Insertable } from 'kysely';
import type { DialectName, Queryable } from '../db/database.ts';
import type { Ref } from '../platform/ids.ts';
import type { AllocatedAddress } from '../network/ip-pool.ts';
import { prepared } from '../db/prepared.ts';
import type { FloatingIpRow, FloatingIpTable } from './floating-ip.table.ts';
import { byRef } from '../db/by-ref.ts';

/** A floating IP as create decides it; floatingIpRow makes its row. */
export interface NewFloatingIp {
  uuid: string;
  accountId: number;
  regionId: number;
  /** What the region's pool handed out. */
  allocated: Pick<AllocatedAddress, 'version' | 'address' | 'prefix' | 'gateway'>;
  /** The mask its server's guest is given (the service decides it). */
  netmask: string;
  createdAt: number;
}

/** The one mapping of a new floating IP to its row: unattached, with no reverse name. */
function floatingIpRow(ip: NewFloatingIp): Insertable<FloatingIpTable> {
  return {
    uuid: ip.uuid,
    account_id: ip.accountId,
    region_id: ip.regionId,
    version: ip.allocated.version,
    address: ip.allocated.address,
    prefix: ip.allocated.prefix,
    netmask: ip.netmask,
    gateway: ip.allocated.gateway,
    reverse: null,
    server_id: null,
    created_at: ip.createdAt,
  };
}

// The list is a hot read: prepared once (src/db/prepared.ts).
const listOfAccount = prepared<[number], FloatingIpRow>(1, (db, accountId) =>
  db.selectFrom('floating_ips').selectAll().where('account_id', '=', accountId).orderBy('id'),
);

export const floatingIpRepository = {
  /** The account's floating IP; `lockOn` the PostgreSQL dialect takes a row lock for a state change. */
  findOwned(db: Queryable, accountId: number, ref: Ref, lockOn?: DialectName): Promise<FloatingIpRow | undefined> {
    return db
      .selectFrom('floating_ips')
      .selectAll()
      .where('account_id', '=', accountId)
      .where(byRef(ref))
      .$if(lockOn === 'postgres', (q) => q.forNoKeyUpdate())
      .executeTakeFirst();
  },

  listByAccount(db: Queryable, accountId: number): Promise<FloatingIpRow[]> {
    return listOfAccount.all(db, accountId);
  },

  /** The IPv4 address of each of these servers (by server id): the bridge an IPv6 block routed to it is reached through. */
  async serversIpv4(db: Queryable, serverIds: number[]): Promise<Map<number, string>> {
    if (serverIds.length === 0) return new Map();
    const rows = await db
      .selectFrom('servers')
      .innerJoin('ip_addresses', 'ip_addresses.holder_uuid', 'servers.uuid')
      .select(['servers.id as server_id', 'ip_addresses.address'])
      .where('servers.id', 'in', serverIds)
      .where('ip_addresses.version', '=', 4)
      .execute();
    return new Map(rows.map((row) => [row.server_id, row.address]));
  },

  async countForAccount(db: Queryable, accountId: number): Promise<number> {
    const row = await db
      .selectFrom('floating_ips')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  },

  async setReverse(db: Queryable, uuid: string, reverse: string): Promise<void> {
    await db.updateTable('floating_ips').set({ reverse }).where('uuid', '=', uuid).execute();
  },

  insert(db: Queryable, ip: NewFloatingIp): Promise<FloatingIpRow> {
    return db.insertInto('floating_ips').values(floatingIpRow(ip)).returningAll().executeTakeFirstOrThrow();
  },

  /** Attaches an unattached IP; false when it was attached meanwhile. */
  async attach(db: Queryable, id: number, serverId: number): Promise<boolean> {
    const result = await db
      .updateTable('floating_ips')
      .set({ server_id: serverId })
      .where('id', '=', id)
      .where('server_id', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Detaches the IP from that server; false when it was not attached to it. */
  async detach(db: Queryable, id: number, serverId: number): Promise<boolean> {
    const result = await db
      .updateTable('floating_ips')
      .set({ server_id: null })
      .where('id', '=', id)
      .where('server_id', '=', serverId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Deletes an unattached IP; false when it is attached. */
  async removeUnattached(db: Queryable, id: number): Promise<boolean> {
    const result = await db
      .deleteFrom('floating_ips')
      .where('id', '=', id)
      .where('server_id', 'is', null)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  },
};
