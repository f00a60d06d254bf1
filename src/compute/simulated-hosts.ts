// The simulated driver's hosts: SIM_HOSTS per region (named <region slug>-1, -2, …), each with the
// SIM_HOST_* capacity. Having no engine, the driver is its own: it places a new machine on the
// online host of its region with the most memory free (then vCPUs, then name), moves machines off
// a host it evacuates (and back when it is restored), and reports the machines of a host made
// offline (an emulator fault) lost with it. What it decides is written as an engine's report
// (reportStatus), so servers show the same host, events and conditions as with a real engine.

import type { Queryable, Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import type { HostRow } from '../hosts/host.table.ts';
import { hostRepository } from '../hosts/host.repository.ts';
import { hostLostReason, isLost, parseConditions, conditionOf } from './machine-conditions.ts';
import { engineReachable, hostLostReport, machinePresent, reportStatus } from './machine-status.ts';

const gb = 1024 ** 3;

/** The simulated hosts the settings name (of one region, or all), as rows (online until drained or made offline). */
function configuredHosts(ctx: Platform, now: number, regionId?: number): HostRow[] {
  const { simHosts, simHostVcpus, simHostMemoryGb, simHostDiskGb } = ctx.config;
  const regions = [...ctx.catalog.regions.values()].filter(
    (region) => regionId === undefined || region.id === regionId,
  );
  return regions.flatMap((region) =>
    Array.from({ length: simHosts }, (_, index) => ({
      name: `${region.slug}-${index + 1}`,
      region_id: region.id,
      status: 'online',
      message: 'Fully operational',
      groups: JSON.stringify([region.engine?.cluster_group ?? region.slug]),
      vcpus: simHostVcpus,
      memory_bytes: simHostMemoryGb * gb,
      disk_bytes: simHostDiskGb * gb,
      updated_at: now,
      failure: null,
    })),
  );
}

/** Makes sure the simulated hosts exist, their capacity as the settings say (their status kept). */
export async function ensureSimulatedHosts(ctx: Platform, db: Queryable): Promise<void> {
  await hostRepository.upsert(db, configuredHosts(ctx, ctx.clock.now()), true);
}

/**
 * The region's simulated hosts, made (or their capacity set) first when they are not as the
 * settings say: one read on every creation once they are.
 */
async function regionHosts(ctx: Platform, db: Queryable, regionId: number): Promise<HostRow[]> {
  const wanted = configuredHosts(ctx, ctx.clock.now(), regionId);
  const found = await hostRepository.inRegion(db, regionId);
  const same = (a: HostRow, b: HostRow | undefined) =>
    b !== undefined &&
    a.vcpus === b.vcpus &&
    a.memory_bytes === Number(b.memory_bytes) &&
    a.disk_bytes === (b.disk_bytes === null ? null : Number(b.disk_bytes));
  if (
    wanted.every((host) =>
      same(
        host,
        found.find((row) => row.name === host.name),
      ),
    )
  )
    return found;
  await hostRepository.upsert(db, wanted, true);
  return hostRepository.inRegion(db, regionId);
}

/** The memory and vCPUs the servers on each host of the region use (from their plans). */
async function usedIn(
  ctx: Platform,
  db: Queryable,
  regionId: number,
): Promise<Map<string, { mem: number; cpu: number }>> {
  const used = new Map<string, { mem: number; cpu: number }>();
  for (const { host, planId, count } of await hostRepository.placements(db, regionId)) {
    const plan = ctx.catalog.plans.get(planId);
    const entry = used.get(host) ?? { mem: 0, cpu: 0 };
    entry.mem += (plan?.ram_mb ?? 0) * 1024 * 1024 * count;
    entry.cpu += (plan?.vcpus ?? 0) * count;
    used.set(host, entry);
  }
  return used;
}

/**
 * The online host of the region with the most room (memory free, then vCPUs free, then by name),
 * leaving out `avoid`; null when there is none.
 */
export async function placeSimulated(
  ctx: Platform,
  db: Queryable,
  regionId: number,
  avoid: readonly string[] = [],
): Promise<string | null> {
  const hosts = (await regionHosts(ctx, db, regionId)).filter(
    (host) => host.status === 'online' && !avoid.includes(host.name),
  );
  // One host to choose from (SIM_HOSTS=1, the default): no need to weigh what runs there.
  if (hosts.length <= 1) return hosts[0]?.name ?? null;
  const used = await usedIn(ctx, db, regionId);
  const room = (host: HostRow) => {
    const u = used.get(host.name) ?? { mem: 0, cpu: 0 };
    return { mem: Number(host.memory_bytes) - u.mem, cpu: host.vcpus - u.cpu };
  };
  hosts.sort((a, b) => {
    const [ra, rb] = [room(a), room(b)];
    return rb.mem - ra.mem || rb.cpu - ra.cpu || a.name.localeCompare(b.name);
  });
  return hosts[0]?.name ?? null;
}

/** Writes where the simulated engine put a server's machine (an engine's report: a move is told). */
export async function reportSimulatedHost(ctx: Platform, trx: Tx, serverUuid: string, host: string): Promise<void> {
  await reportStatus(ctx, trx, serverUuid, { observed: { host }, conditions: [] });
}

/**
 * A new disk of the server (rebuild, reinstall, restore, recovery) is made where it can be: on its
 * host while that is online and not to be avoided, else on the region's online host with the most room.
 */
export async function placeNewDisk(
  ctx: Platform,
  trx: Tx,
  server: { uuid: string; region_id: number; host: string | null; avoid_host: string | null },
): Promise<void> {
  const current = server.host === null ? undefined : await hostRepository.find(trx, server.host);
  if (current?.status === 'online' && server.host !== server.avoid_host) return;
  const avoid = [server.host, server.avoid_host].filter((h): h is string => h !== null);
  const target = await placeSimulated(ctx, trx, server.region_id, avoid);
  if (target) await reportSimulatedHost(ctx, trx, server.uuid, target);
}

/**
 * Evacuates a simulated host: each machine on it moves to the region's other online host with the
 * most room (a server.moved event each), remembering where it came from; the host shows
 * evacuated. Answers how many moved; throws when a machine has nowhere to go (nothing moved then:
 * the caller's transaction rolls back).
 */
export async function evacuateSimulated(ctx: Platform, trx: Tx, host: HostRow): Promise<number> {
  const servers = await hostRepository.serversOn(trx, host.name);
  for (const server of servers) {
    // A machine lost with the host does not move: only a recovery remakes it elsewhere.
    if (isLost(parseConditions(server.conditions))) continue;
    const target = await placeSimulated(ctx, trx, server.region_id, [host.name]);
    if (!target) throw new NoRoom(host.name);
    await hostRepository.setEvacuatedFrom(trx, server.id, host.name);
    await reportSimulatedHost(ctx, trx, server.uuid, target);
  }
  await hostRepository.setStatus(trx, host.name, 'evacuated', 'Unavailable due to maintenance', ctx.clock.now());
  return servers.length;
}

/** Restores a simulated host: it takes machines again, and those evacuated from it come back. */
export async function restoreSimulated(ctx: Platform, trx: Tx, host: HostRow): Promise<number> {
  await hostRepository.setStatus(trx, host.name, 'online', 'Fully operational', ctx.clock.now());
  const back = await hostRepository.evacuatedFrom(trx, host.name);
  for (const server of back) {
    await hostRepository.setEvacuatedFrom(trx, server.id, null);
    await reportSimulatedHost(ctx, trx, server.uuid, host.name);
  }
  return back.length;
}

/** The host goes offline (an emulator fault): the machines on it are lost with it, each told once. */
export async function loseSimulatedHost(ctx: Platform, trx: Tx, host: HostRow): Promise<number> {
  await hostRepository.setStatus(trx, host.name, 'offline', 'Offline (injected by the fault API)', ctx.clock.now());
  const servers = await hostRepository.serversOn(trx, host.name);
  for (const server of servers) await reportStatus(ctx, trx, server.uuid, hostLostReport(host.name));
  return servers.length;
}

/** The host answers again: the machines still on it, lost with it, are there again. */
export async function reviveSimulatedHost(ctx: Platform, trx: Tx, host: HostRow): Promise<number> {
  await hostRepository.setStatus(trx, host.name, 'online', 'Fully operational', ctx.clock.now());
  let back = 0;
  for (const server of await hostRepository.serversOn(trx, host.name)) {
    const present = conditionOf(parseConditions(server.conditions), 'MachinePresent');
    if (present?.reason !== hostLostReason) continue;
    await reportStatus(ctx, trx, server.uuid, { conditions: [engineReachable, machinePresent] });
    back += 1;
  }
  return back;
}

/** A host's machines cannot all move: no other online host in their region. */
export class NoRoom extends Error {
  constructor(host: string) {
    super(`no other online host in the region can take the machines of ${host}`);
    this.name = 'NoRoom';
  }
}
