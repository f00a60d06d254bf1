// How Nubis names what it keeps in the engine: instances, networks, image aliases, the profile.

import type { Image, Plan, Region } from '../../catalog/catalog.types.ts';

export const instancePrefix = 'nubis-';
/** The rescue system of a server in rescue mode: an instance of its own, never taken for a server. */
export const rescuePrefix = 'nubis-rescue-';
export const profileName = 'nubis';
export const defaultImageAlias = 'nubis-debian';
export const tinyImageAlias = 'nubis-tiny';
/** The test image that cloud-init alone configures (network included): `nubis images build --only cloud`. */
export const cloudImageAlias = 'nubis-cloud';

export function instanceName(serverUuid: string): string {
  return `${instancePrefix}${serverUuid}`;
}

/** The server uuid of one of Nubis's instances, or null for anything else in the engine (a rescue system included). */
export function serverOfInstance(name: string): string | null {
  return uuidAfter(name, instancePrefix);
}

export function rescueInstanceName(serverUuid: string): string {
  return `${rescuePrefix}${serverUuid}`;
}

/** The server uuid whose rescue system this instance is, or null. */
export function serverOfRescueInstance(name: string): string | null {
  return uuidAfter(name, rescuePrefix);
}

function uuidAfter(name: string, prefix: string): string | null {
  const uuid = name.slice(prefix.length);
  return name.startsWith(prefix) && /^[0-9a-f-]{36}$/.test(uuid) ? uuid : null;
}

/** The engine image a region's rescue systems boot (busybox and dropbear unless the catalog names another). */
export function rescueImageAlias(region: Region): string {
  return region.engine?.rescue_image ?? tinyImageAlias;
}

/**
 * Where a directory pool keeps a container's root filesystem on the engine's host (the pool's
 * `source`); the engine prefixes the name with its project outside the default project.
 */
export function containerRootfs(poolSource: string, project: string, name: string): string {
  const volume = project && project !== 'default' ? `${project}_${name}` : name;
  return `${poolSource.replace(/\/+$/, '')}/containers/${volume}/rootfs`;
}

/** The engine network of a region's first IPv4 pool (its further pools: lxd-networks.ts). */
export function regionNetwork(region: Region): string {
  return region.engine?.network ?? `nubis-${region.id}`;
}

/** The private engine network of a VPC (a bridge with no host address). */
export function vpcNetwork(vpcUuid: string): string {
  return `nv-${vpcUuid.replace(/-/g, '').slice(0, 12)}`;
}

export function imageAlias(image: Image): string {
  return image.engine?.image ?? defaultImageAlias;
}

/** The engine image a snapshot or backup is kept as, so it outlives its server. */
export function snapshotAlias(snapshotUuid: string): string {
  return `nubis-snap-${snapshotUuid}`;
}

export function instanceType(region: Region, plan: Plan): 'container' | 'virtual-machine' {
  return plan.engine?.instance_type ?? region.engine?.instance_type ?? 'container';
}
