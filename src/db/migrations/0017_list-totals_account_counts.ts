// How many transactions and invoice items each account has, kept on the account row so the
// lists' meta.total (spec: transaction/list, invoice/list) costs the same whatever the account's
// age. Every insert into either table adds one in the same transaction (billing.repository.ts
// countOpened, countTransaction); nothing deletes those rows but a wipe of every table. Filled
// here from the history so far.

import { sql, type Kysely } from 'kysely';

export function accountCounts() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('accounts')
        .addColumn('transaction_count', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('accounts')
        .addColumn('invoice_item_count', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update accounts set
          transaction_count = (select count(*) from transactions where transactions.account_id = accounts.id),
          invoice_item_count = (select count(*) from invoice_items where invoice_items.account_id = accounts.id)`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('accounts').dropColumn('invoice_item_count').execute();
      await db.schema.alterTable('accounts').dropColumn('transaction_count').execute();
    },
  };
}
