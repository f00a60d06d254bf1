// Gauges of stored state, read when /metrics is scraped (one small grouped query each, in
// state-metrics.repository.ts):
// servers by shown state, servers whose machine is lost, machines no server owns, failed copies, accounts by standing, the mail outbox by delivery state, and the
// database pool's connections.

import type { PoolStats } from '../db/connect.ts';
import type { Platform } from '../platform/context.ts';
import { isLost, parseConditions } from '../compute/machine-conditions.ts';
import { listOrphanMachines } from '../compute/orphan-machines.ts';
import { type Counted, stateMetricsRepository } from './state-metrics.repository.ts';
import { registerHostMetrics } from '../hosts/host-metrics.ts';

export function registerStateMetrics(ctx: Platform, poolStats: () => PoolStats): void {
  const { metrics } = ctx;
  registerHostMetrics(ctx);

  metrics.addCollected(
    'nubis_servers',
    'Servers by shown power, as the API shows it: the transition under way (provisioning, booting, …), else unknown (engine unreachable), stopped (machine lost), running or stopped as the engine reports it',
    ['state'],
    async () => {
      const rows = await stateMetricsRepository.serversByShownPower(ctx.db, ctx.clock.now());
      return rows.map((row) => ({ labels: { state: row.label }, value: row.count }));
    },
  );

  metrics.addCollected(
    'nubis_servers_lost',
    'Servers whose machine the engine made is gone, alone or with its host (condition MachinePresent false, InstanceMissing or HostLost); none is made again until an action',
    [],
    async () => {
      const named = await stateMetricsRepository.conditionsNamingALoss(ctx.db);
      return [{ labels: {}, value: named.filter((conditions) => isLost(parseConditions(conditions))).length }];
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
      const counts = byLabel(await stateMetricsRepository.failedSnapshotsByType(ctx.db));
      return ['snapshot', 'backup'].map((type) => ({ labels: { type }, value: counts.get(type) ?? 0 }));
    },
  );

  metrics.addCollected(
    'nubis_accounts',
    'Accounts by standing: active (activated, not blocked), not_activated, blocked',
    ['standing'],
    async () => {
      const counts = byLabel(await stateMetricsRepository.accountsByStanding(ctx.db));
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
      const counts = byLabel(await stateMetricsRepository.mailsByDelivery(ctx.db));
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

/** A gauge's counts by label; a label no row carries reads 0 where the gauge lists it. */
function byLabel(rows: Counted<string>[]): Map<string, number> {
  return new Map(rows.map((row) => [row.label, row.count]));
}
