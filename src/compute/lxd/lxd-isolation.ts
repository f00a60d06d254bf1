// Strangers on one host: what keeps one tenant's server from another's on LXD — the engine's own
// NIC filtering (a server sends only from its MAC and the addresses it was given), port isolation
// on the public bridge (no frame of one server reaches another directly: no rogue DHCP, router
// advertisement or ARP), the per-plan limits of processes and disk I/O, and an id map of its own.

import type { Image } from '../../catalog/catalog.types.ts';
import type { MachineLimits } from '../compute-driver.ts';
import { formatAddress, parsePrefix, type RegionBridge } from './lxd-networks.ts';

/**
 * The public NIC's filters. LXD 5.0 writes them as nftables rules on the host side of the NIC:
 * frames only from the NIC's MAC; IPv4 (and ARP) only from its pinned `ipv4.address` and its
 * `ipv4.routes` (floating IPs); IPv6 only from its pinned `ipv6.address` and its `ipv6.routes` (its
 * /64 and floating /64s), router advertisements dropped. LXD lets IPv6 routes through only when the
 * NIC has a pinned IPv6 address, so one is pinned in the bridge's /80 (the server's IPv4 as its last
 * 32 bits: unique on the bridge, and the guest need not use it). Port isolation keeps every frame
 * of one server from the others on the bridge: a DHCP reply from the server's own address (which
 * the address filter lets pass) reaches only the host. Servers of one bridge still reach each
 * other through the host, as the guest holds its address as a /32 (networkScript, lxd-driver.ts).
 */
export function publicNicSecurity(bridge: RegionBridge | undefined, ipv4: string | null): Record<string, string> {
  return {
    'security.mac_filtering': 'true',
    'security.ipv4_filtering': 'true',
    'security.ipv6_filtering': 'true',
    'security.port_isolation': 'true',
    ...pinnedIpv6(bridge, ipv4),
  };
}

/** The NIC's own IPv6 address in its bridge's /80 (see publicNicSecurity); none without IPv6 or IPv4. */
export function pinnedIpv6(bridge: RegionBridge | undefined, ipv4: string | null): { 'ipv6.address'?: string } {
  const subnet = bridge?.ipv6 ? parsePrefix(bridge.ipv6.subnet) : null;
  const host = ipv4 ? parsePrefix(ipv4) : null;
  if (!subnet || !host || host.version !== 4) return {};
  return { 'ipv6.address': formatAddress(6, subnet.network + host.network) };
}

/**
 * A VPC NIC: its private address pinned and the only one it may send from, with its own MAC. The
 * members of a VPC talk to each other directly, so no port isolation here; a VPC network serves no
 * DHCP and holds only that VPC's servers.
 */
export function vpcNicSecurity(address: string): Record<string, string> {
  return {
    'ipv4.address': address,
    'security.mac_filtering': 'true',
    'security.ipv4_filtering': 'true',
    'security.ipv6_filtering': 'true',
  };
}

/**
 * Processes a server may run at once: 512 per GiB of memory, at least 1024 — room for any real
 * workload of the plan (a busy web server runs a few hundred), while a fork bomb stops there
 * instead of filling the host's process table.
 */
export function processLimit(limits: Pick<MachineLimits, 'memoryMb'>): number {
  return Math.max(1024, Math.round((limits.memoryMb / 1024) * 512));
}

/**
 * The instance config that isolates a server beyond CPU and memory: its process limit, and an id
 * map of its own (`security.idmap.isolated`: LXD gives each such container 65,536 host uids and
 * gids no other container has, from root's range in /etc/subuid and /etc/subgid), so a process
 * that escapes one server is an unprivileged host id no other tenant shares. The rescue system
 * takes the server's map (rescue.ts).
 */
export function isolationConfig(limits: Pick<MachineLimits, 'memoryMb'>): Record<string, string> {
  return { 'limits.processes': String(processLimit(limits)), 'security.idmap.isolated': 'true' };
}

/**
 * Runs the engine calls that make a container one after another. LXD 5.0 hands each isolated
 * container a free id range when it is made, reading every other container's `volatile.idmap.base`;
 * one still being made has none yet and counts as holding host ids 0-65535, after which its
 * search can answer a range below root's in /etc/subuid: the container is made but never starts
 * ("newuidmap: uid range [0-65536) -> [65536-131072) not allowed"; seen with two servers created at
 * once). One creation at a time per Nubis process keeps the ranges where LXD may map them.
 */
export function oneAtATime(): <T>(work: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const turn = last.then(work, work);
    last = turn.catch(() => {});
    return turn;
  };
}

/**
 * The root disk's I/O ceiling: 100 MB/s read and 50 MB/s written per vCPU of the plan, so one
 * server's disk storm leaves the host's disk to the others. Limits in bytes per second rather than
 * `limits.disk.priority`: on this kernel (cgroup v1 without blkio.weight, the CFQ scheduler's) LXD 5.0
 * refuses to start an instance with a priority ("Cannot apply limits.disk.priority as blkio.weight
 * cgroup controller is missing"), while the throttle (blkio.throttle) is there.
 */
export function rootDiskLimits(limits: Pick<MachineLimits, 'vcpus'>): {
  'limits.read': string;
  'limits.write': string;
} {
  return { 'limits.read': `${100 * limits.vcpus}MB`, 'limits.write': `${50 * limits.vcpus}MB` };
}

/**
 * What the server's image needs of its container: nesting (LXD's `security.nesting`) for an image
 * whose servers run containers themselves (Docker), named in the catalog (`engine.nesting`). Only
 * those: nesting gives the guest more of the host's kernel to reach.
 */
export function imageConfig(image: Pick<Image, 'engine'>): Record<string, string> {
  return image.engine?.nesting ? { 'security.nesting': 'true' } : {};
}
