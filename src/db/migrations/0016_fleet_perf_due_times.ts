// Due times, so a sweep round reads only what is due instead of the whole fleet (issue 38):
// accounts.funds_due_at is when the out-of-funds sweep must look at the account again (0 once
// its ledger changed: a transaction, an opened item), null when nothing can bring it to zero;
// servers.overage_due_at is when the bandwidth-overage sweep must look at the server again (0 once
// its traffic, power, plan or options changed; overage_marks counts those marks, so the sweep's
// write of the next time lands only if no mark came in between). Every existing row starts due,
// so the first round after the upgrade looks at each once and sets its next time.

import type { Kysely } from 'kysely';

export function dueTimes() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('accounts')
        .addColumn('funds_due_at', 'bigint', (c) => c.defaultTo(0))
        .execute();
      await db.schema.createIndex('accounts_funds_due').on('accounts').columns(['funds_due_at']).execute();
      await db.schema
        .alterTable('servers')
        .addColumn('overage_due_at', 'bigint', (c) => c.defaultTo(0))
        .execute();
      await db.schema
        .alterTable('servers')
        .addColumn('overage_marks', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('servers_overage_due').on('servers').columns(['overage_due_at', 'id']).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('servers_overage_due').execute();
      await db.schema.alterTable('servers').dropColumn('overage_marks').execute();
      await db.schema.alterTable('servers').dropColumn('overage_due_at').execute();
      await db.schema.dropIndex('accounts_funds_due').execute();
      await db.schema.alterTable('accounts').dropColumn('funds_due_at').execute();
    },
  };
}
