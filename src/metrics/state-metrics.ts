// Gauges of stored state, read when /metrics is scraped (one small grouped query each):
// servers by shown state, servers whose machine is lost, machines no server owns, failed copies, accounts by standing, the mail outbox by delivery state, and the
// database pool's connections.

import { sql } from 'kysely';
import type { PoolStats } from '../db/connect.ts';
import type { Platform } from '../platform/context.ts';
import { isLost, parseConditions } from '../compute/machine-conditions.ts';
import { listOrphanMachines } from '../compute/orphan-machines.ts';
import { shownPowerSql } from '../servers/shown-power.repository.ts';
import { registerHostMetrics } from '../hosts/host-metrics.ts';

export function registerStateMetrics(ctx: Platform, poolStats: () => PoolStats): void {
  const { metrics } = ctx;
  registerHostMetrics(ctx);

  metrics.addCollected(
    'nubis_servers',
    'Servers by shown power, as the API shows it: the transition under way (provisioning, booting, …), else unknown (engine unreachable), stopped (machine lost), running or stopped as the engine reports it',
    ['state'],
    async () => {
      const now = ctx.clock.now();
      const { rows } = await sql<{ state: string; count: number | string }>`
        select ${shownPowerSql(now)} as state, count(*) as count from servers group by 1`.execute(ctx.db);
      return rows.map((row) => ({ labels: { state: row.state }, value: Number(row.count) }));
    },
  );

  metrics.addCollected(
    'nubis_servers_lost',
    'Servers whose machine the engine made is gone, alone or with its host (condition MachinePresent false, InstanceMissing or HostLost); none is made again until an action',
    [],
    async () => {
      // Narrowed by the reason's text, then read as conditions.
      const { rows } = await sql<{ conditions: string }>`
        select conditions from servers where conditions like '%InstanceMissing%' or conditions like '%HostLost%'`.execute(
        ctx.db,
      );
      return [{ labels: {}, value: rows.filter((row) => isLost(parseConditions(row.conditions))).length }];
    },
  );

  metrics.addCollected(
    'nubis_machines_orphaned',
    "Engine machines under Nubis's names that no server owns (after a restore of an older database, say), as of this instance's last reconciliation; kept until the operator removes them",
    [],
    async () => [{ labels: {}, value: listOrphanMachines(ctx).length }],
  );

  metrics.addCollected(
    'nubis_snapshots_failed',
    'Snapshots and backups whose copy the engine gave up on (status failed), by type, until removed',
    ['type'],
    async () => {
      const { rows } = await sql<{ type: string; count: number | string }>`
        select type, count(*) as count from snapshots where failure is not null group by type`.execute(ctx.db);
      const counts = new Map(rows.map((row) => [row.type, Number(row.count)]));
      return ['snapshot', 'backup'].map((type) => ({ labels: { type }, value: counts.get(type) ?? 0 }));
    },
  );

  metrics.addCollected(
    'nubis_accounts',
    'Accounts by standing: active (activated, not blocked), not_activated, blocked',
    ['standing'],
    async () => {
      const { rows } = await sql<{ standing: string; count: number | string }>`
        select case when blocked = 1 then 'blocked' when activated = 1 then 'active' else 'not_activated' end
                 as standing,
               count(*) as count
        from accounts group by 1`.execute(ctx.db);
      const counts = new Map(rows.map((row) => [row.standing, Number(row.count)]));
      return ['active', 'not_activated', 'blocked'].map((standing) => ({
        labels: { standing },
        value: counts.get(standing) ?? 0,
      }));
    },
  );

  metrics.addCollected(
    'nubis_mail_outbox',
    'Mails in the outbox by SMTP delivery: queued (an attempt is due), delivered, given_up, kept (no SMTP_URL: outbox only)',
    ['state'],
    async () => {
      const { rows } = await sql<{ state: string; count: number | string }>`
        select case when delivered_at is not null then 'delivered'
                    when next_attempt_at is not null then 'queued'
                    when attempts > 0 then 'given_up'
                    else 'kept' end as state,
               count(*) as count
        from mail_outbox group by 1`.execute(ctx.db);
      const counts = new Map(rows.map((row) => [row.state, Number(row.count)]));
      return ['queued', 'delivered', 'given_up', 'kept'].map((state) => ({
        labels: { state },
        value: counts.get(state) ?? 0,
      }));
    },
  );

  metrics.addCollected(
    'nubis_db_pool_connections',
    'Database pool connections: total (open), idle, waiting (callers queued for one), max (DB_POOL_SIZE; 1 on SQLite)',
    ['state'],
    async () => {
      const stats = poolStats();
      return (['total', 'idle', 'waiting', 'max'] as const).map((state) => ({
        labels: { state },
        value: stats[state],
      }));
    },
  );
}
