// The funds check sums every invoice item of the account (the balance floor, billing/ledger.ts)
// on each create: an index that carries what it reads, so SQLite (and PostgreSQL, on pages vacuum
// has marked visible) sums from the index alone instead of visiting each item's row. It replaces
// the narrower index on (account_id, final_charge_micros), whose reads it serves as well.

import type { Kysely } from 'kysely';

export function balanceFloorIndex() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('invoice_items_account_balance')
        .on('invoice_items')
        .columns(['account_id', 'final_charge_micros', 'created_at', 'amount_hr_micros'])
        .execute();
      await db.schema.dropIndex('invoice_items_account_charge').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('invoice_items_account_charge')
        .on('invoice_items')
        .columns(['account_id', 'final_charge_micros'])
        .execute();
      await db.schema.dropIndex('invoice_items_account_balance').execute();
    },
  };
}
