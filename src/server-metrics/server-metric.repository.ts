// Queries on the usage samples: the latest reading of a server, a window of readings, the
// hourly averages, and retention.

import { sql } from 'kysely';
import type { Queryable } from '../db/database.ts';
import { batches } from '../db/batches.ts';
import type { MetricResolution, NewServerMetricSample, ServerMetricSampleRow } from './server-metric.table.ts';

export const serverMetricRepository = {
  /**
   * The plan of each of these servers (those that still exist). A thousand at a time
   * (db/batches.ts): the engine reports every instance it runs.
   */
  async plansOf(db: Queryable, serverUuids: string[]): Promise<{ uuid: string; plan_id: number }[]> {
    const plans: { uuid: string; plan_id: number }[] = [];
    for (const batch of batches(serverUuids, 1000))
      for (const row of await db.selectFrom('servers').select(['uuid', 'plan_id']).where('uuid', 'in', batch).execute())
        plans.push(row);
    return plans;
  },

  latestSample(db: Queryable, serverUuid: string): Promise<ServerMetricSampleRow | undefined> {
    return db
      .selectFrom('server_metric_samples')
      .selectAll()
      .where('server_uuid', '=', serverUuid)
      .where('resolution', '=', 'sample')
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  },

  async insert(db: Queryable, row: NewServerMetricSample): Promise<void> {
    await db.insertInto('server_metric_samples').values(row).execute();
  },

  /** Readings of `resolution` with `from <= at < to`, oldest first. */
  window(
    db: Queryable,
    serverUuid: string,
    resolution: MetricResolution,
    from: number,
    to: number,
  ): Promise<ServerMetricSampleRow[]> {
    return db
      .selectFrom('server_metric_samples')
      .selectAll()
      .where('server_uuid', '=', serverUuid)
      .where('resolution', '=', resolution)
      .where('at', '>=', from)
      .where('at', '<', to)
      .orderBy('at')
      .execute();
  },

  /** The average of a server's samples in [from, to) stored as one hour reading at `from`, unless there is one. */
  async rollUpHour(db: Queryable, serverUuid: string, from: number, to: number): Promise<void> {
    const exists = await db
      .selectFrom('server_metric_samples')
      .select('id')
      .where('server_uuid', '=', serverUuid)
      .where('resolution', '=', 'hour')
      .where('at', '=', from)
      .executeTakeFirst();
    if (exists) return;
    const avg = await db
      .selectFrom('server_metric_samples')
      .select([
        sql<number | null>`avg(cpu_percent)`.as('cpu_percent'),
        sql<number | null>`avg(memory_mb)`.as('memory_mb'),
        sql<number | null>`avg(disk_mb)`.as('disk_mb'),
        sql<number | null>`avg(rx_bps)`.as('rx_bps'),
        sql<number | null>`avg(tx_bps)`.as('tx_bps'),
        sql<number>`count(*)`.as('count'),
      ])
      .where('server_uuid', '=', serverUuid)
      .where('resolution', '=', 'sample')
      .where('at', '>=', from)
      .where('at', '<', to)
      .executeTakeFirstOrThrow();
    if (!Number(avg.count)) return;
    const { count: _count, ...values } = avg;
    await this.insert(db, {
      server_uuid: serverUuid,
      resolution: 'hour',
      at: from,
      wall_at: null,
      cpu_ns: null,
      rx_bytes: null,
      tx_bytes: null,
      ...Object.fromEntries(Object.entries(values).map(([key, value]) => [key, value === null ? null : Number(value)])),
    });
  },

  /** Retention: readings of `resolution` older than `before` go, whichever server they were of. */
  async prune(db: Queryable, resolution: MetricResolution, before: number): Promise<void> {
    await db
      .deleteFrom('server_metric_samples')
      .where('resolution', '=', resolution)
      .where('at', '<', before)
      .execute();
  },
};
