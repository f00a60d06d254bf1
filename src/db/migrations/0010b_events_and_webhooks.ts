// Events and webhooks: every change of a resource's state is an event with a sequence number
// (the id); a change the clock will bring about later (a transition ending) waits in
// event_schedule until it is due; each account's webhooks get every one of its events through
// an outbox of deliveries, retried with back-off and never dropped.

import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './column-types.ts';

export function eventsAndWebhooks(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db.schema.createTable('events'), dialect)
        .addColumn('account_id', 'integer')
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('resource_type', 'text', (c) => c.notNull())
        .addColumn('resource_uuid', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('occurred_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('events_account').on('events').columns(['account_id', 'id']).execute();

      await withId(db.schema.createTable('event_schedule'), dialect)
        .addColumn('account_id', 'integer')
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('resource_type', 'text', (c) => c.notNull())
        .addColumn('resource_uuid', 'text', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addColumn('due_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('event_schedule_due').on('event_schedule').columns(['due_at']).execute();
      await db.schema.createIndex('event_schedule_resource').on('event_schedule').columns(['resource_uuid']).execute();

      await withId(db.schema.createTable('webhooks'), dialect)
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('secret_sealed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('webhooks_account').on('webhooks').columns(['account_id']).execute();

      await withId(db.schema.createTable('webhook_deliveries'), dialect)
        .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
        .addColumn('event_id', 'integer', (c) => c.notNull())
        .addColumn('delivered_at', 'bigint')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
        .addColumn('leased_until', 'bigint')
        .addColumn('last_error', 'text')
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_queue')
        .on('webhook_deliveries')
        .columns(['webhook_id', 'delivered_at', 'id'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const table of ['webhook_deliveries', 'webhooks', 'event_schedule', 'events'])
        await db.schema.dropTable(table).execute();
    },
  };
}
