// The desired machine of each server, derived from its rows (the server, its addresses, floating
// IPs, VPC memberships and SSH key), read in one statement per table for each thousand servers.

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import type { MachineSpec } from './compute-driver.ts';
import { computeRepository, type SpecRow } from './compute.repository.ts';
import { batches } from '../db/batches.ts';

/** The specs of the servers that exist among `uuids`, by uuid (one whose catalog entries are gone is left out). */
export async function desiredMachines(
  ctx: Platform,
  db: Queryable,
  uuids: readonly string[],
): Promise<Map<string, MachineSpec>> {
  const specs = new Map<string, MachineSpec>();
  // The reconciliation asks for every server of the fleet: a thousand at a time (db/batches.ts).
  for (const batch of batches(uuids, 1000)) {
    const rows = await computeRepository.specRows(db, batch);
    if (!rows) continue;
    const { servers, addresses, floating, vpcs, keys } = rows;
    const addressesOf = groupBy(addresses, (a) => a.holder_uuid);
    const floatingOf = groupBy(floating, (f) => f.server_id);
    const vpcsOf = groupBy(vpcs, (v) => v.server_id);
    const keyOf = new Map(keys.map((k) => [k.id, k.public_key]));
    for (const server of servers) {
      const spec = specOf(ctx, server, {
        addresses: addressesOf.get(server.uuid) ?? [],
        floating: (floatingOf.get(server.id) ?? []).map((f) => f.address),
        vpcs: (vpcsOf.get(server.id) ?? []).map(({ uuid, cidr, address }) => ({ uuid, cidr, address })),
        sshPublicKey: (server.ssh_key_id !== null && keyOf.get(server.ssh_key_id)) || null,
      });
      if (spec) specs.set(server.uuid, spec);
      else ctx.log.warn({ server: server.uuid }, "the server's region, plan or image left the catalog: no spec");
    }
  }
  return specs;
}

/** The server's spec, read now; null once the server is gone. */
export async function desiredMachine(ctx: Platform, serverUuid: string): Promise<MachineSpec | null> {
  const spec = (await desiredMachines(ctx, ctx.db, [serverUuid])).get(serverUuid);
  if (spec) return spec;
  if (await computeRepository.serverExists(ctx.db, serverUuid))
    throw new Error(`server ${serverUuid}: its region, plan or image left the catalog`);
  return null;
}

function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

function specOf(
  ctx: Platform,
  server: SpecRow,
  held: {
    addresses: { address: string; version: number }[];
    floating: string[];
    vpcs: MachineSpec['vpcs'];
    sshPublicKey: string | null;
  },
): MachineSpec | null {
  const region = ctx.catalog.regions.get(server.region_id);
  const plan = ctx.catalog.plans.get(server.plan_id);
  const image = ctx.catalog.images.get(server.image_id);
  if (!region || !plan || !image) return null;
  const sealedPassword = server.password_sealed;
  return {
    uuid: server.uuid,
    hostname: server.hostname,
    region,
    plan,
    image,
    power: server.power === 'stopped' ? 'stopped' : 'running',
    rescue: server.rescue === 1,
    powerGeneration: server.power_generation,
    disk: {
      generation: server.disk_generation,
      source: server.source_snapshot_uuid
        ? { kind: 'snapshot', snapshot: server.source_snapshot_uuid, image }
        : { kind: 'image', image },
      made: server.observed_disk_generation === server.disk_generation,
    },
    limits: { vcpus: plan.vcpus, memoryMb: plan.ram_mb, diskGb: plan.disk_gb },
    ipv4: held.addresses.find((a) => a.version === 4)?.address ?? null,
    ipv6: held.addresses.find((a) => a.version === 6)?.address ?? null,
    floating: held.floating,
    vpcs: held.vpcs,
    // Unsealed when an engine asks (a disk's first boot, a rescue), not for each of the specs a
    // full read compares: at a million servers that was a million decryptions and their garbage.
    // A function, not a getter: an object literal with a getter is a dictionary, 1.7 kB a spec.
    rootPassword: () => ctx.secrets.decrypt(sealedPassword),
    sshPublicKey: held.sshPublicKey,
    scriptUrl: server.script_url,
    throttle: server.throttled === 1 ? ctx.config.throttleRate : null,
    // A recovery's new machine lands elsewhere than the lost host.
    avoidHosts: server.avoid_host ? [server.avoid_host] : undefined,
  };
}
