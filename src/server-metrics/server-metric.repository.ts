// Queries on the usage samples: the latest reading of a server, a window of readings, the
// hourly averages, and retention.

import { sql } from 'kysely';
import type { Queryable } from '../db/database.ts';
import { batches } from '../db/batches.ts';
import type { MetricResolution, NewServerMetricSample, ServerMetricSampleRow } from './server-metric.table.ts';

/** What the engine read of an instance, as a sample's columns hold it. */
export interface UsageCounters {
  /** CPU time used since the instance started, in ns. */
  cpuNs: number | null;
  rxBytes: number | null;
  txBytes: number | null;
  memoryMb: number | null;
  diskMb: number | null;
}

/** Rates since the previous reading (null on the first of a boot, or across a restart). */
export interface UsageRates {
  /** Percent of the plan's vCPUs. */
  cpuPercent: number | null;
  rxBps: number | null;
  txBps: number | null;
}

/** One reading of an instance as recordUsage works it out; sampleRow makes its row. */
export interface NewUsageSample {
  serverUuid: string;
  /** Clock ms. */
  at: number;
  /** Real ms: the engine's counters count in real time. */
  wallAt: number;
  counters: UsageCounters;
  rates: UsageRates;
}

/** A stored reading (a sample, or an hour's average with no counters), as the service reads it. */
export interface UsageSample extends UsageCounters, UsageRates {
  /** Clock ms (of the hour's start, for an hour). */
  at: number;
  /** Real ms of a sample; null for an hour. */
  wallAt: number | null;
}

/** The one mapping of a new sample to its row. */
function sampleRow(sample: NewUsageSample): NewServerMetricSample {
  return {
    server_uuid: sample.serverUuid,
    resolution: 'sample',
    at: sample.at,
    wall_at: sample.wallAt,
    cpu_ns: sample.counters.cpuNs,
    rx_bytes: sample.counters.rxBytes,
    tx_bytes: sample.counters.txBytes,
    memory_mb: sample.counters.memoryMb,
    disk_mb: sample.counters.diskMb,
    cpu_percent: sample.rates.cpuPercent,
    rx_bps: sample.rates.rxBps,
    tx_bps: sample.rates.txBps,
  };
}

/** The one mapping of a stored reading to what the service reads. */
function rowToUsageSample(row: ServerMetricSampleRow): UsageSample {
  return {
    at: row.at,
    wallAt: row.wall_at,
    cpuNs: row.cpu_ns,
    rxBytes: row.rx_bytes,
    txBytes: row.tx_bytes,
    memoryMb: row.memory_mb,
    diskMb: row.disk_mb,
    cpuPercent: row.cpu_percent,
    rxBps: row.rx_bps,
    txBps: row.tx_bps,
  };
}

async function insertRow(db: Queryable, row: NewServerMetricSample): Promise<void> {
  await db.insertInto('server_metric_samples').values(row).execute();
}

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

  async latestSample(db: Queryable, serverUuid: string): Promise<UsageSample | undefined> {
    const row = await db
      .selectFrom('server_metric_samples')
      .selectAll()
      .where('server_uuid', '=', serverUuid)
      .where('resolution', '=', 'sample')
      .orderBy('at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && rowToUsageSample(row);
  },

  insert(db: Queryable, sample: NewUsageSample): Promise<void> {
    return insertRow(db, sampleRow(sample));
  },

  /** Readings of `resolution` with `from <= at < to`, oldest first. */
  async window(
    db: Queryable,
    serverUuid: string,
    resolution: MetricResolution,
    from: number,
    to: number,
  ): Promise<UsageSample[]> {
    const rows = await db
      .selectFrom('server_metric_samples')
      .selectAll()
      .where('server_uuid', '=', serverUuid)
      .where('resolution', '=', resolution)
      .where('at', '>=', from)
      .where('at', '<', to)
      .orderBy('at')
      .execute();
    return rows.map(rowToUsageSample);
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
    await insertRow(db, {
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
