// Billing: the final charge of a removed invoice item (so the balance sums closed items in SQL
// instead of re-metering an account's whole history), the indexes the ledger and the funds
// sweep read by, and the out-of-funds marker (one row per account that ran out of money).

import type { Kysely } from 'kysely';

export function billing() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('invoice_items').addColumn('final_charge_micros', 'bigint').execute();
      // The balance reads an account's finalised sum and its unfinalised items through this one index.
      await db.schema
        .createIndex('invoice_items_account_charge')
        .on('invoice_items')
        .columns(['account_id', 'final_charge_micros'])
        .execute();
      // The funds sweep looks for accounts that are being billed.
      await db.schema
        .createIndex('invoice_items_open')
        .on('invoice_items')
        .columns(['removed_at', 'account_id'])
        .execute();
      // The credit sum is read on every account/info: cover it so it needs no table rows.
      await db.schema
        .createIndex('transactions_account_amount')
        .on('transactions')
        .columns(['account_id', 'amount_micros'])
        .execute();

      await db.schema
        .createTable('account_funds')
        .addColumn('account_id', 'integer', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
        .addColumn('out_of_funds_since', 'bigint', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('account_funds').execute();
      await db.schema.dropIndex('transactions_account_amount').execute();
      await db.schema.dropIndex('invoice_items_open').execute();
      await db.schema.dropIndex('invoice_items_account_charge').execute();
      await db.schema.alterTable('invoice_items').dropColumn('final_charge_micros').execute();
    },
  };
}
