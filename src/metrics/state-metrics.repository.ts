// The grouped counts the stored-state gauges read at each scrape (state-metrics.ts): one small
// statement each, over the whole table, since a scrape asks for the fleet's totals.

import { sql } from 'kysely';
import type { Queryable } from '../db/database.ts';
import { shownPowerSql } from '../servers/shown-power.repository.ts';

/** A label's value and how many rows carry it. */
export interface Counted<Label extends string> {
  label: Label;
  count: number;
}

function counted<Label extends string>(rows: { label: string; count: number | string }[]): Counted<Label>[] {
  return rows.map((row) => ({ label: row.label as Label, count: Number(row.count) }));
}

export const stateMetricsRepository = {
  /** Servers by the power the API shows at `now` (shown-power.repository.ts). */
  async serversByShownPower(db: Queryable, now: number): Promise<Counted<string>[]> {
    const { rows } = await sql<{ label: string; count: number | string }>`
      select ${shownPowerSql(now)} as label, count(*) as count from servers group by 1`.execute(db);
    return counted(rows);
  },

  /**
   * The conditions of servers whose machine may be lost: narrowed by the reason's text here,
   * read as conditions by the caller.
   */
  async conditionsNamingALoss(db: Queryable): Promise<string[]> {
    const { rows } = await sql<{ conditions: string }>`
      select conditions from servers where conditions like '%InstanceMissing%' or conditions like '%HostLost%'`.execute(
      db,
    );
    return rows.map((row) => row.conditions);
  },

  /** Snapshots and backups whose copy failed, by type. */
  async failedSnapshotsByType(db: Queryable): Promise<Counted<string>[]> {
    const { rows } = await sql<{ label: string; count: number | string }>`
      select type as label, count(*) as count from snapshots where failure is not null group by type`.execute(db);
    return counted(rows);
  },

  /** Accounts by standing: blocked, else active once activated, else not_activated. */
  async accountsByStanding(db: Queryable): Promise<Counted<'active' | 'not_activated' | 'blocked'>[]> {
    const { rows } = await sql<{ label: string; count: number | string }>`
      select case when blocked = 1 then 'blocked' when activated = 1 then 'active' else 'not_activated' end
               as label,
             count(*) as count
      from accounts group by 1`.execute(db);
    return counted(rows);
  },

  /** Mails of the outbox by SMTP delivery: delivered, queued (an attempt is due), given_up, kept. */
  async mailsByDelivery(db: Queryable): Promise<Counted<'queued' | 'delivered' | 'given_up' | 'kept'>[]> {
    const { rows } = await sql<{ label: string; count: number | string }>`
      select case when delivered_at is not null then 'delivered'
                  when next_attempt_at is not null then 'queued'
                  when attempts > 0 then 'given_up'
                  else 'kept' end as label,
             count(*) as count
      from mail_outbox group by 1`.execute(db);
    return counted(rows);
  },
};
