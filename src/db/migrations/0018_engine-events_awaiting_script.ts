// The servers whose first-boot script's outcome is still to be read, found through a partial index:
// every reconciliation asks for them, and a round with nothing changed must not walk the fleet
// (issue 38). The index holds only the few servers waiting.

import { type Kysely, sql } from 'kysely';

export function awaitingScript() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('servers_awaiting_script')
        .on('servers')
        .column('id')
        .where(sql.ref('script_url'), 'is not', null)
        .where(sql.ref('script_outcome'), 'is', null)
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('servers_awaiting_script').execute();
    },
  };
}
