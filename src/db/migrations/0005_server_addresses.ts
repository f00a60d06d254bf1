// Servers and snapshots: the reverse DNS name of each public address a server holds, and the
// indexes that let a server list and the backup sweep read by account and by expiry.

import type { Kysely } from 'kysely';

export function serverAddresses() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('ip_addresses').addColumn('reverse', 'text').execute();
      await db.schema
        .createIndex('ip_addresses_account')
        .on('ip_addresses')
        .columns(['account_id', 'holder_type'])
        .execute();
      await db.schema.createIndex('snapshots_expiry').on('snapshots').columns(['expires_at']).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('snapshots_expiry').execute();
      await db.schema.dropIndex('ip_addresses_account').execute();
      await db.schema.alterTable('ip_addresses').dropColumn('reverse').execute();
    },
  };
}
