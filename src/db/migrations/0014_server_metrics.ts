// Samples of each server's usage (CPU, memory, disk, network) read from the engine at each
// reconciliation, and their hourly averages kept for the month's graphs.

import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './column-types.ts';

export function serverMetrics(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db.schema.createTable('server_metric_samples'), dialect)
        .addColumn('server_uuid', 'text', (c) => c.notNull())
        // 'sample' (one reading) or 'hour' (the average of an hour's samples).
        .addColumn('resolution', 'text', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        // A sample's real time and counters, from which the next one's rates are reckoned.
        .addColumn('wall_at', 'bigint')
        .addColumn('cpu_ns', 'double precision')
        .addColumn('rx_bytes', 'double precision')
        .addColumn('tx_bytes', 'double precision')
        .addColumn('cpu_percent', 'double precision')
        .addColumn('memory_mb', 'double precision')
        .addColumn('disk_mb', 'double precision')
        .addColumn('rx_bps', 'double precision')
        .addColumn('tx_bps', 'double precision')
        .execute();
      await db.schema
        .createIndex('server_metric_samples_server')
        .on('server_metric_samples')
        .columns(['server_uuid', 'resolution', 'at'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('server_metric_samples').execute();
    },
  };
}
