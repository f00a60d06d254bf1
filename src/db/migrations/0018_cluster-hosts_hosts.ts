// Several hosts (issue 41): the engine's hosts as it last reported them (an LXD cluster's members,
// a single engine's one host, or the simulated driver's SIM_HOSTS per region), and on each server
// the host its machine runs on — written only from the engine's reports, like observed_power — and
// the host a recovery asked its new machine to avoid (the spec: written by the recover action).

import type { Kysely } from 'kysely';

export function clusterHosts() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('hosts')
        .addColumn('name', 'text', (c) => c.primaryKey())
        // The region a simulated host serves; null for an engine's member (its groups say).
        .addColumn('region_id', 'integer')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
        // JSON array of the cluster groups the member is in.
        .addColumn('groups', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('vcpus', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('memory_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('disk_bytes', 'bigint')
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.alterTable('servers').addColumn('host', 'text').execute();
      await db.schema.alterTable('servers').addColumn('avoid_host', 'text').execute();
      // The simulated driver's own record of where an evacuation moved a machine from (LXD keeps
      // it on the instance, volatile.evacuate.origin): a restore brings it back there.
      await db.schema.alterTable('servers').addColumn('evacuated_from', 'text').execute();
      await db.schema.createIndex('servers_host').on('servers').column('host').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('servers_host').execute();
      await db.schema.alterTable('servers').dropColumn('evacuated_from').execute();
      await db.schema.alterTable('servers').dropColumn('avoid_host').execute();
      await db.schema.alterTable('servers').dropColumn('host').execute();
      await db.schema.dropTable('hosts').execute();
    },
  };
}
