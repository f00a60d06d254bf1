// Queries on the reverse DNS outbox: a change queued in the caller's transaction (one row per
// address, the newest change winning), the publishing run's claim (FOR UPDATE SKIP LOCKED on
// PostgreSQL) and its outcome, which only counts if no newer change came meanwhile.

import { sql } from 'kysely';
import type { DialectName, Queryable, Tx } from '../db/database.ts';
import type { PtrOutboxRow } from './ptr-outbox.table.ts';

export const ptrOutboxRepository = {
  /** Queues the address's PTR (null: its removal), due at once, replacing any change not yet published. */
  async queue(db: Queryable, address: string, name: string | null, now: number): Promise<void> {
    await db
      .insertInto('ptr_outbox')
      .values({ address, name, generation: 1, attempts: 0, next_attempt_at: now, last_error: null, updated_at: now })
      .onConflict((oc) =>
        oc.column('address').doUpdateSet({
          name,
          generation: sql<number>`ptr_outbox.generation + 1`,
          attempts: 0,
          next_attempt_at: now,
          last_error: null,
          updated_at: now,
        }),
      )
      .execute();
  },

  /** Up to `limit` changes due by `now`; PostgreSQL locks them and skips locked ones. */
  due(dialect: DialectName, trx: Tx, now: number, limit: number): Promise<PtrOutboxRow[]> {
    let query = trx
      .selectFrom('ptr_outbox')
      .selectAll()
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .limit(limit);
    if (dialect === 'postgres') query = query.modifyEnd(sql`for update skip locked`);
    return query.execute();
  },

  /** Counts an attempt and sets the next. */
  async attempted(trx: Tx, address: string, attempts: number, nextAttemptAt: number): Promise<void> {
    await trx
      .updateTable('ptr_outbox')
      .set({ attempts, next_attempt_at: nextAttemptAt })
      .where('address', '=', address)
      .execute();
  },

  /** The change of this generation is on the DNS server: a removal's row goes, a PTR's stays as published. */
  async published(db: Queryable, row: PtrOutboxRow): Promise<void> {
    if (row.name === null) {
      await db
        .deleteFrom('ptr_outbox')
        .where('address', '=', row.address)
        .where('generation', '=', row.generation)
        .execute();
      return;
    }
    await db
      .updateTable('ptr_outbox')
      .set({ next_attempt_at: null, attempts: 0, last_error: null })
      .where('address', '=', row.address)
      .where('generation', '=', row.generation)
      .execute();
  },

  async failed(db: Queryable, row: PtrOutboxRow, error: string): Promise<void> {
    await db
      .updateTable('ptr_outbox')
      .set({ last_error: error })
      .where('address', '=', row.address)
      .where('generation', '=', row.generation)
      .execute();
  },

  /** The changes not yet published, oldest first (at most `limit`). */
  pending(db: Queryable, limit: number): Promise<PtrOutboxRow[]> {
    return db
      .selectFrom('ptr_outbox')
      .selectAll()
      .where('next_attempt_at', 'is not', null)
      .orderBy('updated_at')
      .orderBy('address')
      .limit(limit)
      .execute();
  },

  /** The earliest attempt due after `at`, for the virtual clock's catch-up. */
  async nextAttempt(db: Queryable, at: number): Promise<number | null> {
    const row = await db
      .selectFrom('ptr_outbox')
      .select((eb) => eb.fn.min('next_attempt_at').as('next'))
      .where('next_attempt_at', '>', at)
      .executeTakeFirst();
    return row?.next == null ? null : Number(row.next);
  },

  /**
   * Every public address held now, with its reverse name and the hostname of the server it
   * reaches (null: a floating IP not attached), which ptrName makes its PTR of.
   */
  async desired(db: Queryable) {
    const own = await db
      .selectFrom('ip_addresses')
      .innerJoin('servers', 'servers.uuid', 'ip_addresses.holder_uuid')
      .select(['ip_addresses.pool', 'ip_addresses.address', 'ip_addresses.version', 'ip_addresses.holder_type'])
      .select(['ip_addresses.reverse', 'servers.hostname'])
      .where('ip_addresses.holder_type', '=', 'server')
      .execute();
    const floating = await db
      .selectFrom('floating_ips')
      .leftJoin('servers', 'servers.id', 'floating_ips.server_id')
      .select(['floating_ips.address', 'floating_ips.reverse', 'servers.hostname'])
      .execute();
    return { own, floating };
  },
};
