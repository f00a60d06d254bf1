// The servers with DDoS protection on, by region: at start, those in a region that no longer
// offers it are found through this partial index, which holds only them (withdrawn-options.ts),
// so a start costs what is protected, not the fleet.

import { type Kysely, sql } from 'kysely';

export function ddosIndex() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('servers_ddos_protected')
        .on('servers')
        .columns(['region_id', 'id'])
        .where(sql.ref('ddos_protection'), '=', 1)
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('servers_ddos_protected').execute();
    },
  };
}
