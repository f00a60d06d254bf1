// The real compute driver's work queue: a job per server and action, run after the API's
// transaction commits, on whichever instance claims it; and the engine's last word on a server.

import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './column-types.ts';

export function computeJobs(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db.schema.createTable('compute_jobs'), dialect)
        // server uuid + action: enqueuing the same action again refreshes the one job.
        .addColumn('key', 'text', (c) => c.notNull().unique())
        .addColumn('server_uuid', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('run_at', 'bigint', (c) => c.notNull())
        .addColumn('locked_until', 'bigint')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('compute_jobs_due').on('compute_jobs').columns(['run_at']).execute();
      // Why the engine last failed a server (null when it has not): shown to the operator.
      await db.schema.alterTable('servers').addColumn('engine_error', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('servers').dropColumn('engine_error').execute();
      await db.schema.dropTable('compute_jobs').execute();
    },
  };
}
