// Where an address's PTR record lives in the DNS: the reverse zones the regions' pools need
// (IPv4 in-addr.arpa per /24, or an RFC 2317 classless zone for a pool the catalog marks as part
// of a /24 someone else holds; IPv6 ip6.arpa per /64 block) and the record's name in its zone.

import { isIP } from 'node:net';
import type { Catalog, Region } from '../catalog/catalog.types.ts';
import { intToIpv4, ipv4ToInt } from '../network/ip-pool.ts';
import type { ReverseZone } from './reverse-dns-server.ts';

/** A PTR record's place: its zone and its own fully qualified name. */
export interface PtrPlace {
  zone: ReverseZone;
  name: string;
}

/** The 32 nibbles of an IPv6 address, most significant first. */
function ipv6Nibbles(address: string): string[] {
  const [head, tail] = address.toLowerCase().split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((group) => [...group.padStart(4, '0')]);
}

function v4Octets(address: string): number[] {
  return address.split('.').map(Number);
}

/** The in-addr.arpa zone of the /24 holding the address. */
function v4ZoneName(address: string): string {
  const [a, b, c] = v4Octets(address);
  return `${c}.${b}.${a}.in-addr.arpa.`;
}

/** The ip6.arpa zone of the /64 block holding the address. */
function v6ZoneName(address: string): string {
  return `${ipv6Nibbles(address).slice(0, 16).reverse().join('.')}.ip6.arpa.`;
}

interface V4Pool {
  network: number;
  prefix: number;
  classless: boolean;
}

function v4Pools(region: Region): V4Pool[] {
  const classless = new Set(region.pools.v4_classless ?? []);
  return region.pools.v4.map((cidr) => {
    const [base, bits] = cidr.split('/');
    const prefix = Number(bits);
    const network = (ipv4ToInt(base!) & ((0xffffffff << (32 - prefix)) >>> 0)) >>> 0;
    return { network, prefix, classless: classless.has(cidr) && prefix > 24 };
  });
}

/**
 * The RFC 2317 zone of a pool smaller than a /24 (`<first>-<prefix>.<c>.<b>.<a>.in-addr.arpa.`,
 * the dash form, which needs no escaping in zone files or API paths) with the CNAMEs its parent holds.
 */
function classlessZone(pool: V4Pool): ReverseZone {
  const first = intToIpv4(pool.network);
  const [, , , d] = v4Octets(first);
  const parent = v4ZoneName(first);
  const name = `${d}-${pool.prefix}.${parent}`;
  const cnames = Array.from({ length: 2 ** (32 - pool.prefix) }, (_, i) => {
    const last = d! + i;
    return { name: `${last}.${parent}`, target: `${last}.${name}` };
  });
  return { name, parent: { zone: parent, cnames } };
}

/** The zone and record name of the address's PTR, from the pool of the catalog that holds it. */
export function ptrPlace(catalog: Catalog, address: string): PtrPlace {
  if (isIP(address) === 6) {
    const name = `${ipv6Nibbles(address).reverse().join('.')}.ip6.arpa.`;
    return { zone: { name: v6ZoneName(address) }, name };
  }
  const value = ipv4ToInt(address);
  for (const region of catalog.regions.values())
    for (const pool of v4Pools(region)) {
      const size = 2 ** (32 - pool.prefix);
      if (pool.classless && value >= pool.network && value < pool.network + size) {
        const zone = classlessZone(pool);
        return { zone, name: `${v4Octets(address)[3]}.${zone.name}` };
      }
    }
  const [a, b, c, d] = v4Octets(address);
  return { zone: { name: v4ZoneName(address) }, name: `${d}.${c}.${b}.${a}.in-addr.arpa.` };
}

/**
 * The IPv4 zones every region's pools need: one per /24 a pool covers (or is part of), and a
 * classless zone for each pool marked so. IPv6 zones are per /64 block handed out (ptrPlace
 * names them), not per pool: a /48 holds 65,536 of them.
 */
export function poolZones(catalog: Catalog): ReverseZone[] {
  const zones = new Map<string, ReverseZone>();
  for (const region of catalog.regions.values())
    for (const pool of v4Pools(region)) {
      if (pool.classless) {
        const zone = classlessZone(pool);
        zones.set(zone.name, zone);
        continue;
      }
      const count = pool.prefix >= 24 ? 1 : 2 ** (24 - pool.prefix);
      for (let i = 0; i < count; i++) {
        const name = v4ZoneName(intToIpv4((pool.network + i * 256) >>> 0));
        zones.set(name, zones.get(name) ?? { name });
      }
    }
  return [...zones.values()];
}
