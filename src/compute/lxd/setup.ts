// `nubis compute setup`: prepares the engine for the catalog, idempotently — the storage pool,
// one bridge per region on its first IPv4 pool, the nubis profile, and a check that every catalog
// image and each region's rescue image has its engine image. Refuses a region whose pool overlaps
// a network of this host.

import { networkInterfaces } from 'node:os';
import type { Config } from '../../config.ts';
import type { Catalog, Region } from '../../catalog/catalog.types.ts';
import { LxdError, type LxdClient } from './lxd-client.ts';
import { imageAlias, profileName, regionGateway, regionNetwork, rescueImageAlias } from './lxd-names.ts';

export class SetupError extends Error {
  override name = 'SetupError';
}

function toInt(address: string): number {
  const parts = address.split('.').map(Number);
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

function overlaps(a: { network: number; prefix: number }, b: { network: number; prefix: number }): boolean {
  const prefix = Math.min(a.prefix, b.prefix);
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return (a.network & mask) >>> 0 === (b.network & mask) >>> 0;
}

/** The host's own IPv4 networks, but those on the engine networks Nubis itself made. */
export function hostNetworks(skip: Set<string>): { name: string; cidr: string; network: number; prefix: number }[] {
  const found: { name: string; cidr: string; network: number; prefix: number }[] = [];
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    if (skip.has(name)) continue;
    for (const address of addresses ?? []) {
      if (address.family !== 'IPv4' || address.internal) continue;
      const prefix = Number(address.cidr?.split('/')[1] ?? 32);
      const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
      found.push({
        name,
        cidr: address.cidr ?? address.address,
        network: (toInt(address.address) & mask) >>> 0,
        prefix,
      });
    }
  }
  return found;
}

/** A region's engine network would sit on one of the host's networks: refused, with what to do. */
export function overlapProblems(regions: Region[], skip: Set<string>): string[] {
  const host = hostNetworks(skip);
  const problems: string[] = [];
  for (const region of regions) {
    const gateway = regionGateway(region);
    if (!gateway) continue;
    for (const net of host)
      if (overlaps(gateway, net))
        problems.push(
          `region ${region.id} (${region.slug}): its pool ${region.pools.v4[0]} overlaps the host's network ${net.cidr} on ${net.name}; ` +
            'an engine network there would cut the host off. Give the region another pool in the catalog (CATALOG_FILE), or set instances false for it',
        );
  }
  return problems;
}

export interface SetupReport {
  created: string[];
  present: string[];
  missingImages: string[];
}

async function ensure(
  client: LxdClient,
  report: SetupReport,
  label: string,
  path: string,
  create: () => Promise<unknown>,
): Promise<void> {
  if (await client.exists(path)) {
    report.present.push(label);
    return;
  }
  await create();
  report.created.push(label);
}

export async function computeSetup(config: Config, catalog: Catalog, client: LxdClient): Promise<SetupReport> {
  const regions = [...catalog.regions.values()].filter((r) => r.features.instances && r.pools.v4.length > 0);
  const ours = new Set(regions.map(regionNetwork));
  const problems = overlapProblems(regions, ours);
  if (problems.length) throw new SetupError(problems.join('\n'));

  const report: SetupReport = { created: [], present: [], missingImages: [] };
  const pool = config.lxdStoragePool;
  await ensure(client, report, `storage pool ${pool}`, `/1.0/storage-pools/${pool}`, () =>
    client.call('POST', '/1.0/storage-pools', { body: { name: pool, driver: config.lxdStorageDriver } }),
  );
  for (const region of regions) {
    const network = regionNetwork(region);
    const gateway = regionGateway(region)!;
    const wanted = {
      'ipv4.address': gateway.cidr,
      'ipv4.nat': 'false',
      'ipv4.firewall': 'false',
      'ipv6.address': 'none',
    };
    if (await client.exists(`/1.0/networks/${network}`)) {
      const current = await client.get<{ config: Record<string, string> }>(`/1.0/networks/${network}`);
      if (current.config['ipv4.address'] !== gateway.cidr)
        throw new SetupError(
          `engine network ${network} has ${current.config['ipv4.address']}, but region ${region.id}'s pool needs ${gateway.cidr}; remove it or name another network in the catalog (engine.network)`,
        );
      report.present.push(`network ${network}`);
      continue;
    }
    await client.call('POST', '/1.0/networks', {
      body: {
        name: network,
        type: 'bridge',
        description: `Nubis region ${region.id} (${region.slug})`,
        config: wanted,
      },
    });
    report.created.push(`network ${network} (${gateway.cidr})`);
  }
  const profile = {
    description: "Nubis servers: the root disk on Nubis's storage pool",
    config: {},
    devices: { root: { type: 'disk', path: '/', pool } },
  };
  if (await client.exists(`/1.0/profiles/${profileName}`)) {
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
