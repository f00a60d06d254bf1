// The settled part of each account's balance as a running total on the account row: credits
// and commit charges (transactions) minus the final charges of closed invoice items. The ledger
// reads it with the items still open, so a balance costs the same after 100,000 closed items as
// after one. Written in the same transaction as the transaction or the closed item it counts,
// after the account row is locked (src/billing/settled.ts); filled here from the history so far.

import { sql, type Kysely } from 'kysely';

export function settledBalance() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('accounts')
        .addColumn('settled_micros', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update accounts set settled_micros =
          (select coalesce(sum(amount_micros), 0) from transactions where transactions.account_id = accounts.id)
        - (select coalesce(sum(final_charge_micros), 0) from invoice_items
            where invoice_items.account_id = accounts.id and final_charge_micros is not null)`.execute(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('accounts').dropColumn('settled_micros').execute();
    },
  };
}
