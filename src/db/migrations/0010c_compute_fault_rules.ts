// Fault rules that make a request's compute action fail (the server ends in the documented
// failure state) rather than answer an error.

import type { Kysely } from 'kysely';

export function computeFaultRules() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('fault_rules')
        .addColumn('compute_fail', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('fault_rules').dropColumn('compute_fail').execute();
    },
  };
}
