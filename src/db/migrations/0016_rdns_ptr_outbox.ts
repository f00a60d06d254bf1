// The reverse DNS outbox: one row per public address whose PTR record must be written to (or
// removed from) the authoritative DNS server, queued in the transaction that changed it and
// carried out after the commit, with retries.

import type { Kysely } from 'kysely';

export function ptrOutbox() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('ptr_outbox')
        .addColumn('address', 'text', (column) => column.primaryKey())
        // Null: the address's PTR is to be removed (the row goes once that is done).
        .addColumn('name', 'text')
        .addColumn('generation', 'integer', (column) => column.notNull())
        .addColumn('attempts', 'integer', (column) => column.notNull().defaultTo(0))
        // Null once published; the time of the next attempt while pending.
        .addColumn('next_attempt_at', 'bigint')
        .addColumn('last_error', 'text')
        .addColumn('updated_at', 'bigint', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('ptr_outbox_pending').on('ptr_outbox').columns(['next_attempt_at']).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('ptr_outbox').execute();
    },
  };
}
