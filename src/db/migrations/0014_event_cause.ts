// What caused each event (the customer, the operator, a sweep, the engine), so a server's
// activity can say it; and the events of one resource found by its uuid, newest first.

import type { Kysely } from 'kysely';

export function eventCause() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // Null on the events recorded before causes were kept.
      await db.schema.alterTable('events').addColumn('cause', 'text').execute();
      await db.schema.createIndex('events_resource').on('events').columns(['resource_uuid', 'id']).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('events_resource').execute();
      await db.schema.alterTable('events').dropColumn('cause').execute();
    },
  };
}
