// Emulator tools: fault rules (shared by every instance, so each one is counted once however
// many instances serve the matching requests) and named saved states.

import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './column-types.ts';

export function faultRulesAndSavedStates(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db.schema.createTable('fault_rules'), dialect)
        .addColumn('method', 'text')
        .addColumn('path', 'text')
        .addColumn('operation_id', 'text')
        .addColumn('account_id', 'integer')
        .addColumn('api', 'text')
        .addColumn('status', 'integer')
        .addColumn('latency_ms', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('retry_after', 'integer')
        .addColumn('probability_ppm', 'integer', (c) => c.notNull().defaultTo(1_000_000))
        .addColumn('remaining', 'integer')
        .addColumn('fired', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('note', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('saved_states')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('document', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('saved_states').execute();
      await db.schema.dropTable('fault_rules').execute();
    },
  };
}
