// Blocked ports in the engine: one network ACL per region bridge, attached to the bridge, whose
// egress rules drop each server's traffic (by its source addresses) to its account's blocked TCP
// and UDP ports; everything else is allowed. LXD 5.0's bridged NICs take no `security.acls`
// (the engine refuses the option), so the rules name the NIC by its addresses instead: the same
// effect for that server alone. A bridge ACL filters what crosses between the bridge and the host
// (routed traffic and the host's own addresses), which is every way out of a region's bridge.

import type { Region } from '../../catalog/catalog.types.ts';
import type { ServerEgress } from '../server-egress.ts';
import type { LxdClient } from './lxd-client.ts';
import { LxdError } from './lxd-client.ts';
import { bridgeOf, ipv6Block, regionBridges } from './lxd-networks.ts';

/** A server whose egress is filtered: its addresses and the ports its account may not reach. */
export type PortPolicyServer = Omit<ServerEgress, 'uuid'>;

export interface AclRule {
  action: 'drop';
  protocol: 'tcp' | 'udp';
  source: string;
  destination_port: string;
  description: string;
  state: 'enabled';
}

export interface BridgeAcl {
  /** The bridge (engine network) the ACL is attached to. */
  bridge: string;
  name: string;
  description: string;
  egress: AclRule[];
}

/** The ACL of a bridge: `<bridge>-ports` (bridges have at most 15 characters; ACLs 63). */
export function aclName(bridge: string): string {
  return `${bridge}-ports`;
}

/** What the engine matches a server's traffic by: its IPv4 addresses (/32) and IPv6 blocks (/64). */
export function sourcesOf(server: Pick<PortPolicyServer, 'ipv4' | 'ipv6' | 'floating'>): string[] {
  const addresses = [...(server.ipv4 ? [server.ipv4] : []), ...(server.ipv6 ? [server.ipv6] : []), ...server.floating];
  return [...new Set(addresses.map((a) => (a.includes(':') ? ipv6Block(a) : `${a}/32`)))].sort();
}

/**
 * The ACL of every bridge of the regions (one with no rules where nothing is blocked, so a lifted
 * block leaves no rule behind): servers with the same blocked ports share one rule a protocol.
 * The servers come a page at a time (the egress policy's): what is held is the rules' sources.
 */
export async function bridgeAclsOf(
  regions: Region[],
  pages: AsyncIterable<readonly PortPolicyServer[]>,
): Promise<BridgeAcl[]> {
  const acls = aclBuilder(regions);
  for await (const servers of pages) acls.add(servers);
  return acls.done();
}

function aclBuilder(regions: Region[]): { add(servers: readonly PortPolicyServer[]): void; done(): BridgeAcl[] } {
  const acls = new Map<string, BridgeAcl>();
  for (const region of regions)
    for (const bridge of regionBridges(region))
      acls.set(bridge.name, {
        bridge: bridge.name,
        name: aclName(bridge.name),
        description: `Nubis blocked ports of the servers on ${bridge.name}`,
        egress: [],
      });
  // Per bridge: the ports (protocol and list) → the sources of the servers that may not reach them.
  const groups = new Map<string, Map<string, { protocol: 'tcp' | 'udp'; ports: string; sources: Set<string> }>>();
  const add = (servers: readonly PortPolicyServer[]) => {
    for (const server of servers) {
      const bridge = bridgeOf(server.region, server.ipv4);
      if (!bridge || !acls.has(bridge.name)) continue;
      const sources = sourcesOf(server);
      if (!sources.length) continue;
      const byPorts = groups.get(bridge.name) ?? new Map();
      groups.set(bridge.name, byPorts);
      for (const [protocol, ports] of [
        ['tcp', server.blocked.TCP],
        ['udp', server.blocked.UDP],
      ] as const) {
        if (!ports.length) continue;
        const list = [...new Set(ports)].sort((a, b) => a - b).join(',');
        const key = `${protocol} ${list}`;
        const group = byPorts.get(key) ?? { protocol, ports: list, sources: new Set<string>() };
        byPorts.set(key, group);
        for (const source of sources) group.sources.add(source);
      }
    }
  };
  const done = () => {
    for (const [bridge, byPorts] of groups) {
      const acl = acls.get(bridge)!;
      acl.egress = [...byPorts.keys()].sort().map((key) => {
        const group = byPorts.get(key)!;
        return {
          action: 'drop',
          protocol: group.protocol,
          source: [...group.sources].sort().join(','),
          destination_port: group.ports,
          description: `blocked ${group.protocol.toUpperCase()} ports`,
          state: 'enabled',
        };
      });
    }
    return [...acls.values()];
  };
  return { add, done };
}

/** The bridge's configuration with its ACL attached and everything the ACL does not drop allowed. */
export function bridgeAclConfig(acl: BridgeAcl, current: Record<string, string>): Record<string, string> {
  const others = (current['security.acls'] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name && name !== acl.name);
  return {
    ...current,
    'security.acls': [...others, acl.name].join(','),
    // Without these the engine rejects what no rule allows: only the drops are wanted.
    'security.acls.default.egress.action': 'allow',
    'security.acls.default.ingress.action': 'allow',
  };
}

/** Rules as text independent of the order of keys the engine answers with. */
function canonicalRules(rules: Record<string, string>[]): string {
  return JSON.stringify(
    rules.map((rule) =>
      Object.entries(rule)
        .filter(([, value]) => value !== '')
        .sort(([a], [b]) => a.localeCompare(b)),
    ),
  );
}

/**
 * Makes the engine hold each ACL and each bridge use its own: creates or rewrites an ACL only when
 * its rules differ, and a bridge's configuration only when it lacks its ACL. Answers the ACLs it changed.
 */
export async function applyBridgeAcls(client: LxdClient, acls: BridgeAcl[]): Promise<string[]> {
  const changed: string[] = [];
  for (const acl of acls) {
    if (!(await client.exists(`/1.0/networks/${acl.bridge}`))) continue;
    const body = { description: acl.description, egress: acl.egress, ingress: [], config: {} };
    let current: { egress: Record<string, string>[] } | null = null;
    try {
      current = await client.get<{ egress: Record<string, string>[] }>(`/1.0/network-acls/${acl.name}`);
    } catch (error) {
      if (!(error instanceof LxdError && error.status === 404)) throw error;
    }
    if (!current) {
      await client.call('POST', '/1.0/network-acls', { body: { name: acl.name, ...body } }).catch((error: unknown) => {
        // Another instance made it meanwhile: write ours over it.
        if (!(error instanceof LxdError && /already exists/i.test(error.message))) throw error;
        return client.call('PUT', `/1.0/network-acls/${acl.name}`, { body });
      });
      changed.push(acl.name);
    } else if (
      canonicalRules(current.egress ?? []) !== canonicalRules(acl.egress as unknown as Record<string, string>[])
    ) {
      await client.call('PUT', `/1.0/network-acls/${acl.name}`, { body });
      changed.push(acl.name);
    }
    const network = await client.get<{ config: Record<string, string> }>(`/1.0/networks/${acl.bridge}`);
    const config = bridgeAclConfig(acl, network.config);
    const missing = Object.fromEntries(Object.entries(config).filter(([key, value]) => network.config[key] !== value));
    // PATCH: only these keys change, whatever `nubis compute setup` set beside them.
    if (Object.keys(missing).length)
      await client.call('PATCH', `/1.0/networks/${acl.bridge}`, { body: { config: missing } });
  }
  return changed;
}
