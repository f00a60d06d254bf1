// The compute seam's side of several hosts: the engine's host reports (kept in the hosts table,
// refreshed at every reconciliation and when the operator looks), the evacuation and restore of a
// host (recorded in the operator's transaction, carried out after the commit by a job), and what a
// host reported offline means for the machines on it (lost with it: HostLost). The simulated
// driver, which has no engine, is its own (simulated-hosts.ts).

import type { Queryable, Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import type { HostRow } from '../hosts/host.table.ts';
import { hostRepository } from '../hosts/host.repository.ts';
import { transaction } from '../db/transaction.ts';
import { type Engine, type HostJob, type HostReport, hostJobs } from './compute-driver.ts';
import { queueHostJob } from './job-queue.ts';
import { recordEvent } from '../events/event.service.ts';
import {
  ensureSimulatedHosts,
  evacuateSimulated,
  loseSimulatedHost,
  restoreSimulated,
  reviveSimulatedHost,
} from './simulated-hosts.ts';

export { NoRoom } from './simulated-hosts.ts';

function rowOf(report: HostReport, now: number): HostRow {
  return {
    name: report.name,
    region_id: null,
    status: report.status,
    message: report.message,
    groups: JSON.stringify(report.groups),
    vcpus: report.capacity.vcpus,
    memory_bytes: report.capacity.memoryBytes,
    disk_bytes: report.capacity.diskBytes,
    updated_at: now,
    failure: null,
  };
}

/** True when the kept rows say what the reports say (the time aside). */
function sameAsKept(kept: readonly HostRow[], reports: readonly HostReport[]): boolean {
  if (kept.length !== reports.length) return false;
  return reports.every((report) => {
    const row = kept.find((k) => k.name === report.name);
    const want = rowOf(report, 0);
    return (
      row !== undefined &&
      row.region_id === null &&
      row.status === want.status &&
      row.message === want.message &&
      row.groups === want.groups &&
      row.vcpus === want.vcpus &&
      Number(row.memory_bytes) === want.memory_bytes &&
      (row.disk_bytes === null ? null : Number(row.disk_bytes)) === want.disk_bytes
    );
  });
}

/** The engine's hosts within COMPUTE_OBSERVE_TIMEOUT_SECONDS, written into the hosts table when they changed. */
export async function refreshEngineHosts(ctx: Platform, engine: Engine): Promise<HostReport[]> {
  const boundMs = ctx.config.computeObserveTimeoutSeconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the engine did not list its hosts within ${boundMs / 1000} s`)),
      boundMs,
    );
  });
  try {
    const reports = await Promise.race([engine.hosts(), late]);
    const now = ctx.clock.now();
    // A round with nothing new writes nothing.
    if (sameAsKept(await hostRepository.all(ctx.db), reports)) return reports;
    await transaction(ctx, async (trx) => {
      await hostRepository.upsert(
        trx,
        reports.map((report) => rowOf(report, now)),
      );
      await hostRepository.removeOthers(
        trx,
        reports.map((report) => report.name),
      );
    });
    return reports;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The hosts as the engine last reported them: asked now with an engine (the table keeps the
 * last answer when it does not give one), the simulated driver's own otherwise.
 */
export async function currentHosts(ctx: Platform): Promise<HostRow[]> {
  const engine = ctx.compute.engine;
  if (engine)
    await refreshEngineHosts(ctx, engine).catch((error: unknown) =>
      ctx.log.warn({ err: (error as Error).message }, 'hosts: the engine did not answer; its last report is shown'),
    );
  else await ensureSimulatedHosts(ctx, ctx.db);
  return hostRepository.all(ctx.db);
}

/** A host by name as last reported (the simulated hosts made sure of first). */
export async function knownHost(ctx: Platform, db: Queryable, name: string): Promise<HostRow | undefined> {
  if (!ctx.compute.engine) await ensureSimulatedHosts(ctx, db);
  return hostRepository.find(db, name);
}

/**
 * Records the evacuation (or restore) of a host in the caller's transaction: with an engine, a
 * job carries it out after the commit; the simulated driver moves its machines now. Answers how
 * many machines the simulated driver moved (null: the engine's job will).
 */
export async function recordHostWork(ctx: Platform, trx: Tx, host: HostRow, action: HostJob): Promise<number | null> {
  if (ctx.compute.engine) {
    await queueHostJob(ctx, trx, action, host.name);
    return null;
  }
  return action === hostJobs.evacuate ? evacuateSimulated(ctx, trx, host) : restoreSimulated(ctx, trx, host);
}

/** The emulator's host faults (simulated driver only): a host goes offline, or answers again. */
export function recordHostFault(ctx: Platform, trx: Tx, host: HostRow, offline: boolean): Promise<number> {
  return offline ? loseSimulatedHost(ctx, trx, host) : reviveSimulatedHost(ctx, trx, host);
}

/**
 * Carries out a host job with the engine, idempotently: a host already as asked (a retry after the
 * engine finished, or a second request) is left alone. The hosts table takes the engine's answer.
 */
export async function performHostJob(ctx: Platform, engine: Engine, action: HostJob, payload: string): Promise<void> {
  const { host } = JSON.parse(payload) as { host: string };
  const before = (await engine.hosts()).find((report) => report.name === host);
  if (!before) throw new Error(`the engine has no host ${host}`);
  if (action === hostJobs.evacuate && before.status !== 'evacuated') await engine.evacuateHost(host);
  if (action === hostJobs.restore && before.status === 'evacuated') await engine.restoreHost(host);
  await refreshEngineHosts(ctx, engine);
}

/** The operator's word for a host job. */
const hostWorkNames: Record<HostJob, string> = { [hostJobs.evacuate]: 'drain', [hostJobs.restore]: 'restore' };

/**
 * A host job the engine gave up on (out of attempts), in the job runner's transaction: the host
 * keeps why (shown in the hosts list and /metrics until a drain or restore succeeds there) and the
 * operator's feed gets a `host.drain_failed` or `host.restore_failed` event (no account's).
 */
export async function hostWorkGaveUp(
  ctx: Platform,
  trx: Tx,
  action: HostJob,
  payload: string,
  attempts: number,
  message: string,
): Promise<void> {
  const { host } = JSON.parse(payload) as { host: string };
  const work = hostWorkNames[action];
  const reason = `${work} failed after ${attempts} attempts: ${message}`.slice(0, 2000);
  await hostRepository.setFailure(trx, host, reason);
  await recordEvent(ctx, trx, {
    accountId: null,
    resource: { type: 'host', uuid: host },
    type: `host.${work}_failed`,
    data: { attempts, reason: message.slice(0, 2000) },
    cause: 'engine',
  });
}

/** A host job carried out: an earlier failure shown on the host is over. */
export async function hostWorkDone(trx: Tx, payload: string): Promise<void> {
  const { host } = JSON.parse(payload) as { host: string };
  await hostRepository.setFailure(trx, host, null);
}

/** The names of the hosts the engine reports offline, and the one host of an engine that has only one. */
export interface HostView {
  offline: Set<string>;
  only: string | undefined;
}

export function hostView(reports: readonly HostReport[]): HostView {
  return {
    offline: new Set(reports.filter((report) => report.status === 'offline').map((report) => report.name)),
    only: reports.length === 1 ? reports[0]!.name : undefined,
  };
}
