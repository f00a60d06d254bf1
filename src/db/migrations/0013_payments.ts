// Payments, tax and monthly documents (issue 24): transactions learn where their money came
// from (a processor's reference, a bank-transfer reference, the payment they refund) and when it
// entered the balance; processor events are remembered by id so a second delivery changes
// nothing; monthly invoice documents are kept as issued, numbered by one counter in the settings
// table (which a reset keeps, so a number is never issued twice); a mail may carry a document.

import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './column-types.ts';

export function payments(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('transactions').addColumn('reference', 'text').execute();
      await db.schema.alterTable('transactions').addColumn('processor_ref', 'text').execute();
      await db.schema.alterTable('transactions').addColumn('payment_ref', 'text').execute();
      await db.schema.alterTable('transactions').addColumn('parent_id', 'integer').execute();
      await db.schema.alterTable('transactions').addColumn('settled_at', 'bigint').execute();
      await sql`update transactions set settled_at = created_at where pstatus = 'completed'`.execute(db);
      await db.schema.createIndex('transactions_reference').unique().on('transactions').column('reference').execute();
      await db.schema
        .createIndex('transactions_processor_ref')
        .unique()
        .on('transactions')
        .columns(['ptype', 'processor_ref'])
        .execute();
      await db.schema.createIndex('transactions_payment_ref').on('transactions').column('payment_ref').execute();
      await db.schema.createIndex('transactions_pending').on('transactions').columns(['pstatus', 'id']).execute();
      await db.schema
        .createIndex('transactions_settled')
        .on('transactions')
        .columns(['account_id', 'settled_at'])
        .execute();

      await db.schema
        .createTable('payment_events')
        .addColumn('processor', 'text', (c) => c.notNull())
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('received_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('payment_events_pk', ['processor', 'event_id'])
        .execute();

      await withId(db.schema.createTable('invoice_documents'), dialect)
        .addColumn('number', 'integer', (c) => c.notNull().unique())
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('period', 'text', (c) => c.notNull())
        .addColumn('period_start', 'bigint', (c) => c.notNull())
        .addColumn('period_end', 'bigint', (c) => c.notNull())
        .addColumn('usage_micros', 'bigint', (c) => c.notNull())
        .addColumn('payments_micros', 'bigint', (c) => c.notNull())
        .addColumn('tax_micros', 'bigint', (c) => c.notNull())
        .addColumn('opening_micros', 'bigint', (c) => c.notNull())
        .addColumn('closing_micros', 'bigint', (c) => c.notNull())
        .addColumn('pdf', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('invoice_documents_account_period', ['account_id', 'period'])
        .execute();

      await db.schema.alterTable('mail_outbox').addColumn('document_id', 'integer').execute();
      await sql`insert into settings (key, value) values ('invoice_document_number', '0') on conflict (key) do nothing`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await sql`delete from settings where key = 'invoice_document_number'`.execute(db);
      await db.schema.alterTable('mail_outbox').dropColumn('document_id').execute();
      await db.schema.dropTable('invoice_documents').execute();
      await db.schema.dropTable('payment_events').execute();
      for (const index of [
        'transactions_reference',
        'transactions_processor_ref',
        'transactions_payment_ref',
        'transactions_pending',
        'transactions_settled',
      ])
        await db.schema.dropIndex(index).execute();
      for (const column of ['reference', 'processor_ref', 'payment_ref', 'parent_id', 'settled_at'])
        await db.schema.alterTable('transactions').dropColumn(column).execute();
    },
  };
}
