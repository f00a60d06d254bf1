// `nubis compute setup`: prepares the engine for the catalog, idempotently — the storage pool,
// one bridge per IPv4 pool of each region (with the region's IPv6, src/compute/lxd/lxd-networks.ts),
// the nubis profile, and a check that every catalog image and each region's rescue image has its
// engine image. Refuses a region whose pool (IPv4 or IPv6) overlaps a network of this host.

import { networkInterfaces } from 'node:os';
import type { Config } from '../../config.ts';
import type { Catalog, Region } from '../../catalog/catalog.types.ts';
import { clusterMemberNames, createOnCluster, uplinkedBridgeConfig } from './cluster-networks.ts';
import { LxdError, type LxdClient } from './lxd-client.ts';
import { canonicalDevices } from './lxd-driver.ts';
import { imageAlias, profileName, rescueImageAlias } from './lxd-names.ts';
import { overlaps, parsePrefix, type Prefix, type RegionBridge, regionBridges, regionHasIpv6 } from './lxd-networks.ts';

export class SetupError extends Error {
  override name = 'SetupError';
}

/** Linux names network interfaces (a bridge included) with at most 15 characters. */
const maxInterfaceName = 15;

export interface HostNetwork {
  name: string;
  cidr: string;
  prefix: Prefix;
}

/** The host's own IPv4 and IPv6 networks (not loopback, not link-local), but those on `skip`. */
export function hostNetworks(skip: Set<string>): HostNetwork[] {
  const found: HostNetwork[] = [];
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    if (skip.has(name)) continue;
    for (const address of addresses ?? []) {
      if (address.internal || !address.cidr || address.address.toLowerCase().startsWith('fe80:')) continue;
      const prefix = parsePrefix(address.cidr);
      if (prefix) found.push({ name, cidr: address.cidr, prefix });
    }
  }
  return found;
}

/** The pools of the regions that engine networks would serve: every IPv4 pool, and the IPv6 one. */
function servedPools(region: Region): string[] {
  return [...region.pools.v4, ...(regionHasIpv6(region) ? [region.pools.v6!] : [])];
}

/**
 * What setup refuses, one line each: a pool overlapping one of the host's networks (an engine
 * network there would cut the host off), an unreadable pool, a bridge name Linux or LXD would
 * refuse or trip over.
 */
export function overlapProblems(regions: Region[], host: HostNetwork[]): string[] {
  const problems: string[] = [];
  for (const region of regions) {
    const label = `region ${region.id} (${region.slug})`;
    for (const pool of servedPools(region)) {
      const prefix = parsePrefix(pool);
      if (!prefix) {
        problems.push(`${label}: its pool ${pool} is not a network prefix`);
        continue;
      }
      for (const net of host)
        if (overlaps(prefix, net.prefix))
          problems.push(
            `${label}: its pool ${pool} overlaps the host's network ${net.cidr} on ${net.name}; ` +
              'an engine network there would cut the host off. Give the region another pool in the catalog (CATALOG_FILE), or set instances false for it',
          );
    }
    for (const bridge of regionBridges(region))
      if (bridge.name.length > maxInterfaceName)
        problems.push(
          `${label}: the engine network ${bridge.name} of its pool ${bridge.pool} has a name longer than ${maxInterfaceName} characters; give the region a shorter engine.network in the catalog`,
        );
  }
  // LXD takes an interface named "<bridge>-..." for one of that bridge's tunnels, and deletes it.
  const names = regions.flatMap((region) => regionBridges(region).map((bridge) => ({ region, name: bridge.name })));
  for (const a of names)
    for (const b of names)
      if (b.name.startsWith(`${a.name}-`))
        problems.push(
          `region ${b.region.id} (${b.region.slug}): its engine network ${b.name} starts with "${a.name}-", which the engine deletes whenever it sets up ${a.name} (region ${a.region.id}); give one of them another engine.network in the catalog`,
        );
  return problems;
}

export interface SetupReport {
  created: string[];
  /** Networks made by an earlier setup, brought to what the catalog now needs (IPv6, for one). */
  updated: string[];
  present: string[];
  missingImages: string[];
  /** What works but not as the plans say (a pool without quotas, say), one line each. */
  warnings: string[];
}

export async function computeSetup(config: Config, catalog: Catalog, client: LxdClient): Promise<SetupReport> {
  const regions = [...catalog.regions.values()].filter((r) => r.features.instances && r.pools.v4.length > 0);
  const ours = new Set(regions.flatMap((region) => regionBridges(region).map((bridge) => bridge.name)));
  const members = await clusterMemberNames(client);
  // A cluster's networks are on its members, not on the host Nubis runs on: only the names are checked.
  const problems = overlapProblems(regions, members ? [] : hostNetworks(ours));
  if (problems.length) throw new SetupError(problems.join('\n'));

  const report: SetupReport = { created: [], updated: [], present: [], missingImages: [], warnings: [] };
  const pool = config.lxdStoragePool;
  if (members) await ensureImageReplicas(client, report);
  await ensureStoragePool(client, report, config, members);
  for (const region of regions)
    for (const [index, bridge] of regionBridges(region).entries())
      await ensureBridge(client, report, region, bridge, members, index === 0 ? region.engine?.uplink : undefined);
  const profile = {
    description: "Nubis servers: the root disk on Nubis's storage pool",
    config: {},
    devices: { root: { type: 'disk', path: '/', pool } },
  };
  if (await client.exists(`/1.0/profiles/${profileName}`)) {
    const current = await client.get<typeof profile>(`/1.0/profiles/${profileName}`);
    // Written only when it differs: a PUT updates every instance using it, and fails on any one that cannot be.
    if (
      canonicalDevices(current.devices) !== canonicalDevices(profile.devices) ||
      current.description !== profile.description
    )
      await client.call('PUT', `/1.0/profiles/${profileName}`, { body: profile });
    report.present.push(`profile ${profileName}`);
  } else {
    await client.call('POST', '/1.0/profiles', { body: { name: profileName, ...profile } });
    report.created.push(`profile ${profileName}`);
  }
  // The servers' images, and the rescue systems' of the regions that run instances.
  for (const alias of new Set([...[...catalog.images.values()].map(imageAlias), ...regions.map(rescueImageAlias)])) {
    try {
      await client.get(`/1.0/images/aliases/${alias}`);
      report.present.push(`image ${alias}`);
    } catch (error) {
      if (!(error instanceof LxdError && error.status === 404)) throw error;
      report.missingImages.push(alias);
    }
  }
  return report;
}

/** Drivers whose volumes take a `size` quota: a root disk on them is the plan's size, no more. */
const quotaDrivers = new Set(['btrfs', 'zfs', 'lvm', 'ceph', 'cephfs']);

/**
 * The servers' storage pool: made with LXD_STORAGE_DRIVER (btrfs by default, on a loop file of
 * LXD_STORAGE_SIZE or the engine's default size) when missing; one already there is used as it is,
 * with a warning when it has no quotas (a `dir` pool: a server could fill the host's disk). On a
 * cluster the pool is each member's own (its own loop file of that size): one an interrupted setup
 * left pending or errored is created again, the members that have it skipped.
 */
async function ensureStoragePool(
  client: LxdClient,
  report: SetupReport,
  config: Config,
  members: string[] | null,
): Promise<void> {
  const pool = config.lxdStoragePool;
  const path = `/1.0/storage-pools/${pool}`;
  const found = (await client.exists(path)) ? await client.get<{ driver: string; status?: string }>(path) : null;
  // On a cluster, one an earlier setup left pending or errored (a member without its loop file) is made again.
  const unfinished = members !== null && (found?.status === 'Pending' || found?.status === 'Errored');
  if (found && !unfinished) {
    const { driver } = found;
    report.present.push(`storage pool ${pool} (${driver})`);
    if (!quotaDrivers.has(driver))
      report.warnings.push(
        `storage pool ${pool} is ${driver}, which has no quotas: a server can write past its plan's disk size; name a btrfs, zfs or lvm pool in LXD_STORAGE_POOL (a new name is made with LXD_STORAGE_DRIVER)`,
      );
    return;
  }
  const driver = found?.driver ?? config.lxdStorageDriver;
  const size: Record<string, string> = config.lxdStorageSize && driver !== 'dir' ? { size: config.lxdStorageSize } : {};
  // On a cluster the size is each member's own (a loop file on each).
  if (members) await createOnCluster(client, '/1.0/storage-pools', members, { name: pool, driver }, () => size, {});
  else await client.call('POST', '/1.0/storage-pools', { body: { name: pool, driver, config: size } });
  report.created.push(`storage pool ${pool} (${driver}${size.size ? `, ${size.size}` : ''})`);
}

/**
 * On a cluster every member keeps every image (`cluster.images_minimal_replica=-1`): the servers'
 * snapshots and backups are images, and a member's loss must take none of them.
 */
async function ensureImageReplicas(client: LxdClient, report: SetupReport): Promise<void> {
  const server = await client.get<{ config: Record<string, string> }>('/1.0');
  if (server.config['cluster.images_minimal_replica'] === '-1') {
    report.present.push('cluster.images_minimal_replica -1 (every member keeps every image)');
    return;
  }
  await client.call('PATCH', '/1.0', { body: { config: { 'cluster.images_minimal_replica': '-1' } } });
  report.updated.push('cluster.images_minimal_replica -1 (every member keeps every image)');
}

/** Creates the bridge, or upgrades one an earlier setup made (IPv6 added, say) without renumbering it. */
async function ensureBridge(
  client: LxdClient,
  report: SetupReport,
  region: Region,
  bridge: RegionBridge,
  members: string[] | null,
  uplink: string | undefined,
) {
  const path = `/1.0/networks/${bridge.name}`;
  const cluster = members ? uplinkedBridgeConfig(bridge.config, uplink) : null;
  const wanted = cluster ? cluster.global : bridge.config;
  const description = `Nubis region ${region.id} (${region.slug}), pool ${bridge.pool}`;
  const status = (await client.exists(path)) ? (await client.get<{ status?: string }>(path)).status : null;
  if (members && cluster && (status === null || status === 'Pending' || status === 'Errored')) {
    await createOnCluster(
      client,
      '/1.0/networks',
      members,
      { name: bridge.name, type: 'bridge', description },
      () => cluster.member,
      wanted,
    );
    report.created.push(
      `network ${bridge.name} (${describe(wanted)}${uplink ? `, uplink ${uplink}` : ''}, on ${members.length} members)`,
    );
    return;
  }
  if (status === null) {
    await client.call('POST', '/1.0/networks', {
      body: {
        name: bridge.name,
        type: 'bridge',
        description,
        config: wanted,
      },
    });
    report.created.push(`network ${bridge.name} (${describe(wanted)})`);
    return;
  }
  const current = (await client.get<{ config: Record<string, string> }>(path)).config;
  // Servers hold addresses pinned on this network: moving its gateway would strand them.
  if (current['ipv4.address'] !== wanted['ipv4.address'])
    throw new SetupError(
      `engine network ${bridge.name} has ${current['ipv4.address']}, but region ${region.id}'s pool ${bridge.pool} needs ${wanted['ipv4.address']}; remove it or name another network in the catalog (engine.network)`,
    );
  const changes = Object.fromEntries(Object.entries(wanted).filter(([key, value]) => current[key] !== value));
  if (Object.keys(changes).length === 0) {
    report.present.push(`network ${bridge.name}`);
    return;
  }
  // PATCH merges: keys the operator added to the network stay.
  await client.call('PATCH', path, { body: { config: changes } });
  report.updated.push(`network ${bridge.name} (${describe(changes)})`);
}

function describe(config: Record<string, string>): string {
  return (
    ['ipv4.address', 'ipv6.address']
      .filter((key) => config[key] !== undefined)
      .map((key) => `${key.slice(0, 4)} ${config[key]}`)
      .join(', ') || Object.keys(config).join(', ')
  );
}
