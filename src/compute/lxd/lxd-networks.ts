// A region's public addresses in the engine: one bridge per IPv4 pool (its gateway, .1, on the
// host; the bridge's DHCP pins each server's address), each bridge also with an IPv6 gateway in
// the region's IPv6 block 0; and the address arithmetic the driver and setup share.

import type { Region } from '../../catalog/catalog.types.ts';
import { regionNetwork } from './lxd-names.ts';

/** A network prefix of either family, as numbers the overlap check can compare. */
export interface Prefix {
  version: 4 | 6;
  network: bigint;
  bits: number;
}

export interface RegionBridge {
  /** The engine network (a Linux bridge: at most 15 characters). */
  name: string;
  /** The IPv4 pool it serves. */
  pool: string;
  /** Its engine configuration, as `nubis compute setup` creates or upgrades it. */
  config: Record<string, string>;
  /** With IPv6: the host's address on it (the guests' IPv6 gateway) and its subnet, a /80 of block 0. */
  ipv6: { gateway: string; subnet: string } | null;
}

const widths = { 4: 32, 6: 128 } as const;

function ipv4Value(text: string): bigint | null {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return null;
  return parts.reduce((value, part) => (value << 8n) | BigInt(part), 0n);
}

function ipv6Value(text: string): bigint | null {
  const halves = text.toLowerCase().split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const hextets = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (hextets.some((h) => !/^[0-9a-f]{1,4}$/.test(h))) return null;
  return hextets.reduce((value, h) => (value << 16n) | BigInt(Number.parseInt(h, 16)), 0n);
}

/** An address of either family as text, the way the kernel prints it (IPv6 compressed). */
export function formatAddress(version: 4 | 6, value: bigint): string {
  if (version === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
  const hextets = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((shift) => ((value >> shift) & 0xffffn).toString(16));
  // The URL parser compresses the longest run of zero hextets, as RFC 5952 and iproute2 do.
  return new URL(`http://[${hextets.join(':')}]/`).hostname.slice(1, -1);
}

/** `192.0.2.0/25`, `2001:db8::/48` or a bare address (a /32 or /128) as a prefix; null if unreadable. */
export function parsePrefix(text: string): Prefix | null {
  const [address = '', length] = text.split('/');
  const version = address.includes(':') ? 6 : 4;
  const value = version === 4 ? ipv4Value(address) : ipv6Value(address);
  const bits = length === undefined ? widths[version] : Number(length);
  if (value === null || !Number.isInteger(bits) || bits < 0 || bits > widths[version]) return null;
  return { version, network: value & mask(version, bits), bits };
}

function mask(version: 4 | 6, bits: number): bigint {
  const width = BigInt(widths[version]);
  return ((1n << width) - 1n) ^ ((1n << (width - BigInt(bits))) - 1n);
}

/** Whether two prefixes share an address. */
export function overlaps(a: Prefix, b: Prefix): boolean {
  if (a.version !== b.version) return false;
  const shorter = mask(a.version, Math.min(a.bits, b.bits));
  return (a.network & shorter) === (b.network & shorter);
}

export function contains(prefix: Prefix, address: string): boolean {
  const inner = parsePrefix(address);
  return inner !== null && inner.bits >= prefix.bits && overlaps(prefix, inner);
}

/** The /64 an IPv6 address sits in (a server's block, or a floating IP's), e.g. 2001:db8:1:2::/64. */
export function ipv6Block(address: string): string {
  const prefix = parsePrefix(`${address}/64`);
  return prefix ? `${formatAddress(6, prefix.network)}/64` : address;
}

/** The address a server answers on in an IPv6 /64 it holds: the block's first host (::1), as for its own. */
export function ipv6FirstHost(address: string): string {
  const prefix = parsePrefix(`${address}/64`);
  return prefix ? formatAddress(6, prefix.network + 1n) : address;
}

/** Whether the region's servers and floating IPs get IPv6 (the condition server create checks). */
export function regionHasIpv6(region: Region): boolean {
  return region.features.ipv6 && !!region.pools.v6;
}

/**
 * The engine network of each IPv4 pool of the region: the first is `engine.network` (default
 * nubis-<id>), the next ones add p2, p3 ... (not "-2": LXD deletes the interfaces named
 * "<bridge>-..." when it sets a bridge up, taking them for its own tunnels). Each holds its pool's
 * gateway (.1). With IPv6, bridge n also holds <pool>:0:n::1/80 in block 0, which the IPAM keeps
 * for the region: the host's source address towards the servers on it, and their gateway. A /80
 * each, as one subnet on several bridges is not routable, and block 0 is all the IPAM keeps.
 */
export function regionBridges(region: Region): RegionBridge[] {
  const base = regionNetwork(region);
  const v6 = regionHasIpv6(region) ? parsePrefix(region.pools.v6!) : null;
  return region.pools.v4.map((pool, index) => {
    const prefix = parsePrefix(pool)!;
    const gateway = formatAddress(4, prefix.network + 1n);
    const ipv6 = v6
      ? {
          gateway: formatAddress(6, v6.network + (BigInt(index + 1) << 48n) + 1n),
          subnet: `${formatAddress(6, v6.network + (BigInt(index + 1) << 48n))}/80`,
        }
      : null;
    return {
      name: index === 0 ? base : `${base}p${index + 1}`,
      pool,
      config: {
        'ipv4.address': `${gateway}/${prefix.bits}`,
        'ipv4.nat': 'false',
        'ipv4.firewall': 'false',
        ...(ipv6
          ? {
              'ipv6.address': `${ipv6.gateway}/80`,
              'ipv6.nat': 'false',
              'ipv6.firewall': 'false',
              // Every server address is set in the guest: nothing for DHCPv6 to hand out.
              'ipv6.dhcp': 'false',
            }
          : { 'ipv6.address': 'none' }),
      },
      ipv6,
    };
  });
}

/** The bridge a server's NIC sits on: the one of the pool its IPv4 address comes from. */
export function bridgeOf(region: Region, ipv4: string | null): RegionBridge | undefined {
  const bridges = regionBridges(region);
  return bridges.find((b) => ipv4 && contains(parsePrefix(b.pool)!, ipv4)) ?? bridges[0];
}

/**
 * What the host routes to a server's NIC beyond its own address: its IPv6 /64 and each floating
 * IP (an IPv4 /32 from any pool of the region, its bridge's own included, or an IPv6 /64), as
 * LXD's NIC routes. The NIC's address filter (lxd-isolation.ts) lets the server send from these
 * and no other, so a floating IP of its bridge's own pool is a route too.
 */
export function nicRoutes(addresses: { ipv6: string | null; floating: string[] }): {
  'ipv4.routes'?: string;
  'ipv6.routes'?: string;
} {
  const v4 = addresses.floating.filter((a) => !a.includes(':')).map((a) => `${a}/32`);
  const v6 = [...(addresses.ipv6 ? [addresses.ipv6] : []), ...addresses.floating.filter((a) => a.includes(':'))].map(
    ipv6Block,
  );
  return {
    ...(v4.length ? { 'ipv4.routes': v4.join(',') } : {}),
    ...(v6.length ? { 'ipv6.routes': v6.join(',') } : {}),
  };
}
