// An engine that is an LXD cluster: objects that exist on every member (storage pools, networks)
// are made the engine's way — a pending definition on each member (`?target=<member>`, with the
// keys that are the member's own), then the global create that brings them up everywhere.
//
// Networks spanning members (docs/cluster.md):
// - a region's public bridge on each member bridges the region's uplink (`engine.uplink`, the
//   interface every member has on the shared public segment) and keeps the gateway address itself
//   (a distributed gateway: each member routes its own servers); each member's DHCP answers only
//   the servers it runs, so one member's dnsmasq never hands out an address for another's;
// - a VPC bridge on each member joins the others over a VXLAN tunnel (the engine's bridge
//   `tunnel.*`; no Open vSwitch in this kernel, hence no OVN), one VNI per VPC.

import { LxdError, type LxdClient } from './lxd-client.ts';

/** The cluster's members, or null when the engine is not clustered. */
export async function clusterMemberNames(client: LxdClient): Promise<string[] | null> {
  const server = await client.get<{ environment?: { server_clustered?: boolean } }>('/1.0');
  if (!server.environment?.server_clustered) return null;
  const members = await client.get<{ server_name: string }[]>('/1.0/cluster/members?recursion=1');
  return members.map((member) => member.server_name);
}

function already(error: unknown): boolean {
  return error instanceof LxdError && /already (exists|defined)|already pending/i.test(error.message);
}

/**
 * Creates a storage pool or network (`collection`: /1.0/storage-pools or /1.0/networks) on every
 * member: pending on each with its own keys, then global. Resumes one left pending or errored by
 * an earlier attempt (the global create is retried; members already defined are skipped).
 */
export async function createOnCluster(
  client: LxdClient,
  collection: '/1.0/storage-pools' | '/1.0/networks',
  members: string[],
  object: { name: string; type?: string; driver?: string; description?: string },
  memberConfig: (member: string) => Record<string, string>,
  globalConfig: Record<string, string>,
): Promise<void> {
  const { description, ...identity } = object;
  for (const member of members)
    await client
      .call('POST', `${collection}?target=${encodeURIComponent(member)}`, {
        body: { ...identity, config: memberConfig(member) },
      })
      .catch((error: unknown) => {
        if (!already(error)) throw error;
      });
  await client.call('POST', collection, { body: { ...identity, description, config: globalConfig } });
}

/** Keys of a network the engine keeps per member: given on the pending creates, not globally. */
const memberNetworkKeys = new Set(['bridge.external_interfaces']);

/**
 * A region's public bridge on a cluster: the single-host configuration (the pool's gateway,
 * no NAT, no engine firewall) plus the uplink on each member and DHCP for the member's own servers only.
 */
export function uplinkedBridgeConfig(
  config: Record<string, string>,
  uplink: string | undefined,
): { member: Record<string, string>; global: Record<string, string> } {
  const global = Object.fromEntries(Object.entries(config).filter(([key]) => !memberNetworkKeys.has(key)));
  // dnsmasq's `known` tag: a host of the member's own hosts file (its servers' pinned addresses).
  global['raw.dnsmasq'] = 'dhcp-ignore=tag:!known';
  return { member: uplink ? { 'bridge.external_interfaces': uplink } : {}, global };
}

/** The VXLAN tunnel LXD sets up on a VPC bridge: `<bridge>-v`, so the bridge's name is at most 13 characters. */
export const vpcTunnel = 'v';

/** A VPC's engine network on a cluster: shorter than on one host, leaving room for its tunnel's name. */
export function clusterVpcNetwork(vpcUuid: string): string {
  return `nv-${vpcUuid.replace(/-/g, '').slice(0, 10)}`;
}

/** A VNI from the VPC's uuid (1 .. 2^24-2), moved on past those `taken` by other VPCs' networks. */
export function vpcVni(vpcUuid: string, taken: Set<number>): number {
  const span = 2 ** 24 - 2;
  let vni = (Number.parseInt(vpcUuid.replace(/-/g, '').slice(0, 8), 16) % span) + 1;
  while (taken.has(vni)) vni = (vni % span) + 1;
  return vni;
}

/** The global configuration of a VPC bridge on a cluster: no address, a VXLAN tunnel among the members. */
export function vpcTunnelConfig(vni: number): Record<string, string> {
  return {
    'ipv4.address': 'none',
    'ipv6.address': 'none',
    'ipv4.nat': 'false',
    [`tunnel.${vpcTunnel}.protocol`]: 'vxlan',
    [`tunnel.${vpcTunnel}.id`]: String(vni),
    // Multicast among the members (the kernel's default group): every member of the segment joins.
    [`tunnel.${vpcTunnel}.group`]: '239.0.0.1',
    // The tunnel's 50 bytes come off the members' own 1500.
    'bridge.mtu': '1450',
  };
}

let vpcCreates: Promise<unknown> = Promise.resolve();

/**
 * Makes a VPC's bridge on every member (idempotent). One at a time in this process: each picks a
 * VNI no other VPC network holds.
 */
export function ensureClusterVpcNetwork(
  client: LxdClient,
  members: string[],
  vpc: { uuid: string; cidr: string },
): Promise<void> {
  const next = vpcCreates.then(async () => {
    const name = clusterVpcNetwork(vpc.uuid);
    if (await client.exists(`/1.0/networks/${name}`)) {
      const found = await client.get<{ status?: string }>(`/1.0/networks/${name}`);
      if (found.status === 'Created') return;
    }
    const networks = await client.get<{ name: string; config: Record<string, string> }[]>('/1.0/networks?recursion=1');
    const taken = new Set(
      networks
        .filter((n) => n.name !== name)
        .map((n) => Number(n.config[`tunnel.${vpcTunnel}.id`]))
        .filter(Number.isInteger),
    );
    await createOnCluster(
      client,
      '/1.0/networks',
      members,
      { name, type: 'bridge', description: `Nubis VPC ${vpc.uuid} (${vpc.cidr})` },
      () => ({}),
      vpcTunnelConfig(vpcVni(vpc.uuid, taken)),
    ).catch((error: unknown) => {
      if (!already(error)) throw error;
    });
  });
  vpcCreates = next.catch(() => {});
  return next;
}
