// The operator's hosts: each as the engine reports it (status, groups, capacity), with what the
// servers on it use (their plans' vCPUs, memory and disk) and how many run there; a host drained
// for maintenance (its machines moved off by the engine, each told with a server.moved event)
// and restored; and, in the emulator, a host made offline to practise a host's loss.

import type { Platform } from '../platform/context.ts';
import { Conflict, NotFound } from '../platform/errors.ts';
import { transaction } from '../db/transaction.ts';
import type { Tx } from '../db/database.ts';
import { hostJobs } from '../compute/compute-driver.ts';
import { currentHosts, knownHost, NoRoom, recordHostFault, recordHostWork } from '../compute/host-work.ts';
import { hostRepository } from './host.repository.ts';
import type { HostRow } from './host.table.ts';

export type HostStatus = 'online' | 'evacuated' | 'offline';

/** A host as the operator sees it (the operator API shapes it for the wire). */
export interface Host {
  name: string;
  status: HostStatus;
  message: string;
  groups: string[];
  capacity: { vcpus: number; memoryBytes: number; diskBytes: number | null };
  /** What the servers on it take, from their plans. */
  used: { vcpus: number; memoryBytes: number; diskBytes: number };
  servers: number;
  /** The last drain or restore the engine gave up on there, until one succeeds. */
  failure: string | null;
}

const mb = 1024 ** 2;
const gb = 1024 ** 3;

type Placements = Awaited<ReturnType<typeof hostRepository.placements>>;

function hostOf(ctx: Platform, row: HostRow, placements: Placements): Host {
  const used = { vcpus: 0, memoryBytes: 0, diskBytes: 0 };
  let servers = 0;
  for (const { host, planId, count } of placements) {
    if (host !== row.name) continue;
    servers += count;
    const plan = ctx.catalog.plans.get(planId);
    if (!plan) continue;
    used.vcpus += plan.vcpus * count;
    used.memoryBytes += plan.ram_mb * mb * count;
    used.diskBytes += plan.disk_gb * gb * count;
  }
  return {
    name: row.name,
    status: row.status as HostStatus,
    message: row.message,
    groups: JSON.parse(row.groups) as string[],
    capacity: {
      vcpus: row.vcpus,
      memoryBytes: Number(row.memory_bytes),
      diskBytes: row.disk_bytes === null ? null : Number(row.disk_bytes),
    },
    used,
    servers,
    failure: row.failure,
  };
}

/** Every host, by name, as the engine reports it now (its last report when it does not answer). */
export async function listHosts(ctx: Platform): Promise<Host[]> {
  const rows = await currentHosts(ctx);
  const placements = await hostRepository.placements(ctx.db);
  return rows.map((row) => hostOf(ctx, row, placements));
}

/** The hosts as last reported, without asking the engine (what /metrics reads at each scrape). */
export async function reportedHosts(ctx: Platform): Promise<Host[]> {
  const rows = await hostRepository.all(ctx.db);
  const placements = await hostRepository.placements(ctx.db);
  return rows.map((row) => hostOf(ctx, row, placements));
}

async function withHost<T>(ctx: Platform, name: string, work: (trx: Tx, host: HostRow) => Promise<T>): Promise<T> {
  // The engine's word on its hosts first (before any reconciliation has read them, say).
  if (ctx.compute.engine) await currentHosts(ctx);
  return transaction(ctx, async (trx) => {
    const host = await knownHost(ctx, trx, name);
    if (!host) throw new NotFound('host');
    return work(trx, host);
  });
}

/** One host as last reported (404 when there is none of that name). */
async function hostNamed(ctx: Platform, name: string): Promise<Host> {
  const row = await hostRepository.find(ctx.db, name);
  if (!row) throw new NotFound('host');
  return hostOf(ctx, row, await hostRepository.placements(ctx.db));
}

/**
 * Drains a host for maintenance: its machines move to other hosts (LXD's evacuation: stop, move,
 * start; a job after the commit), each moved server told with a server.moved event; the host then
 * takes no new machine. 409 for a host offline, or with nowhere to move its machines.
 */
export async function drainHost(ctx: Platform, name: string): Promise<Host> {
  await withHost(ctx, name, async (trx, host) => {
    if (host.status === 'offline') throw new Conflict(`host ${name} is offline: its machines cannot be moved`);
    if (ctx.compute.engine && (await hostRepository.all(trx)).length < 2)
      throw new Conflict('the engine is a single host, not a cluster: there is no other host to move machines to');
    try {
      await recordHostWork(ctx, trx, host, hostJobs.evacuate);
    } catch (error) {
      if (error instanceof NoRoom) throw new Conflict(error.message);
      throw error;
    }
  });
  return hostNamed(ctx, name);
}

/** Restores a drained host: it takes machines again, and those moved off it come back. 409 for a host offline. */
export async function restoreHost(ctx: Platform, name: string): Promise<Host> {
  await withHost(ctx, name, async (trx, host) => {
    if (host.status === 'offline') throw new Conflict(`host ${name} is offline: bring it back before restoring it`);
    await recordHostWork(ctx, trx, host, hostJobs.restore);
  });
  return hostNamed(ctx, name);
}

export const hostFaults = ['host_offline'] as const;
export type HostFault = (typeof hostFaults)[number];

/**
 * Emulator: the host goes offline as a real engine would report it — its servers are lost with
 * it (MachinePresent false, HostLost), one server.lost event and mail each — or comes back
 * (`clear`: the machines still on it are there again). 409 with a real engine, which reports its own.
 */
export async function setHostFault(ctx: Platform, name: string, fault: HostFault | null): Promise<Host> {
  if (ctx.compute.engine) throw new Conflict('host faults are for the simulated driver; this engine reports its own');
  await withHost(ctx, name, (trx, host) => recordHostFault(ctx, trx, host, fault !== null));
  return hostNamed(ctx, name);
}
