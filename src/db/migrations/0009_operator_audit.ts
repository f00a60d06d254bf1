// The operator audit log: one row per operator call that changes something (who, from where,
// which call, on what, with which outcome, when). A reset keeps it.

import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './column-types.ts';

export function operatorAudit(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db.schema.createTable('operator_audit'), dialect)
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('operator', 'text', (c) => c.notNull())
        .addColumn('client', 'text', (c) => c.notNull())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('call', 'text', (c) => c.notNull())
        .addColumn('target', 'text')
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('detail', 'text')
        .execute();
      await db.schema.createIndex('operator_audit_call').on('operator_audit').columns(['call', 'id']).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('operator_audit').execute();
    },
  };
}
