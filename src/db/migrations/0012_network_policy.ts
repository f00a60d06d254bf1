// What the API shows and the machine obeys (issue 23): an account's own blocked-port list (null:
// the deployment's default), a server's first-boot script outcome, whether its NIC is throttled
// for bandwidth overage, and the GB over its allowance already billed this month.

import type { Kysely } from 'kysely';

export function networkPolicy() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('accounts').addColumn('blocked_ports', 'text').execute();
      await db.schema.alterTable('servers').addColumn('script_outcome', 'text').execute();
      await db.schema
        .alterTable('servers')
        .addColumn('throttled', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('servers').addColumn('overage_billed_month', 'text').execute();
      await db.schema
        .alterTable('servers')
        .addColumn('overage_billed_gb', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const column of ['overage_billed_gb', 'overage_billed_month', 'throttled', 'script_outcome'])
        await db.schema.alterTable('servers').dropColumn(column).execute();
      await db.schema.alterTable('accounts').dropColumn('blocked_ports').execute();
    },
  };
}
