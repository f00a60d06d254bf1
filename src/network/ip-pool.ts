// Public address pools of the regions (from the catalog): hands out IPv4 addresses and IPv6
// /64 blocks. An address is taken by inserting it under the unique (pool, address) index,
// so it is never handed out twice, whatever the number of instances.

import type { Queryable } from '../db/database.ts';
import { ipAddressRepository, offeredPerInsert } from './ip-address.repository.ts';
import type { Platform } from '../platform/context.ts';
import type { Region } from '../catalog/catalog.types.ts';
import { Conflict } from '../platform/errors.ts';

export interface AllocatedAddress {
  address: string;
  version: 4 | 6;
  /** Dotted netmask for IPv4, the prefix length as text for IPv6. */
  netmask: string;
  gateway: string;
  prefix: number;
}

export interface AllocationRequest {
  region: Region;
  version: 4 | 6;
  accountId: number;
  holderType: 'server' | 'floating_ip';
  holderUuid: string;
}

/** An IPv4 range minus its network, gateway (.1) and broadcast addresses. */
interface V4Range {
  pool: string;
  first: number;
  count: number;
  gateway: number;
  prefix: number;
}

export function ipv4ToInt(address: string): number {
  const parts = address.split('.').map(Number);
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

export function intToIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

function prefixToNetmask(prefix: number): string {
  return intToIpv4(prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0);
}

function v4Ranges(region: Region): V4Range[] {
  return region.pools.v4.map((cidr) => {
    const [base, bits] = cidr.split('/');
    const prefix = Number(bits);
    const network = ipv4ToInt(base!) & ((0xffffffff << (32 - prefix)) >>> 0);
    const size = 2 ** (32 - prefix);
    return {
      pool: `${region.id}-v4-${cidr}`,
      first: (network + 2) >>> 0,
      count: Math.max(0, size - 3),
      gateway: (network + 1) >>> 0,
      prefix,
    };
  });
}

/** The /48 (or shorter) IPv6 prefix as four hextets, from which /64 blocks are numbered. */
function v6Base(region: Region): { pool: string; hextets: string[]; blocks: number } | null {
  const cidr = region.pools.v6;
  if (!cidr) return null;
  const [base, bits] = cidr.split('/');
  const prefix = Number(bits);
  const head = base!.split('::')[0]!.split(':').filter(Boolean);
  while (head.length < 3) head.push('0');
  return { pool: `${region.id}-v6-${cidr}`, hextets: head.slice(0, 3), blocks: 2 ** Math.min(16, 64 - prefix) };
}

const v6Gateways = new WeakMap<Region, { ranges: V4Range[]; head: string | null }>();

/**
 * The IPv6 gateway of a server whose IPv4 is `ipv4`: the first host of the /80 of block 0 the
 * region keeps for the bridge of that IPv4 pool (the n-th pool: <prefix>:0:n::1). The real
 * driver's bridge holds it and its guests route through it (the LXD driver's regionBridges), so the
 * API shows it on every driver; null without an IPv6 pool.
 */
export function ipv6Gateway(region: Region, ipv4: string | undefined): string | null {
  let shape = v6Gateways.get(region);
  if (!shape) {
    const base = v6Base(region);
    shape = { ranges: v4Ranges(region), head: base ? base.hextets.join(':') : null };
    v6Gateways.set(region, shape);
  }
  if (shape.head === null) return null;
  const value = ipv4 === undefined ? -1 : ipv4ToInt(ipv4);
  const index = Math.max(
    0,
    shape.ranges.findIndex((range) => value >= range.first - 2 && value < range.first - 2 + 2 ** (32 - range.prefix)),
  );
  return `${shape.head}:0:${(index + 1).toString(16)}::1`;
}

/** Takes the first free one of `offered` (at most offeredPerInsert); null when none was free. */
async function takeFirstFree(
  db: Queryable,
  ctx: Platform,
  request: AllocationRequest,
  pool: string,
  offered: string[],
): Promise<string | null> {
  // Fewer than the statement's slots: the rest repeat the first.
  const padded = Array.from({ length: offeredPerInsert }, (_, i) => offered[i] ?? offered[0]);
  const address = await ipAddressRepository.insertFirstFree(
    db,
    pool,
    request.version,
    request.region.id,
    request.accountId,
    request.holderType,
    request.holderUuid,
    ctx.clock.now(),
    padded,
  );
  return address;
}

/**
 * Takes a free address: a few statements each offering random addresses (one is enough unless
 * the pool is nearly full), then a scan of what is taken (exact in a small or full one). Refuses with a clear error when
 * the region's pool is exhausted.
 */
export async function allocateAddress(
  ctx: Platform,
  db: Queryable,
  request: AllocationRequest,
): Promise<AllocatedAddress> {
  if (request.version === 4) {
    for (const range of v4Ranges(request.region)) {
      const found = await allocateIndex(db, ctx, request, range.pool, range.count, (i) => intToIpv4(range.first + i));
      if (found)
        return {
          address: found,
          version: 4,
          netmask: prefixToNetmask(range.prefix),
          gateway: intToIpv4(range.gateway),
          prefix: 32,
        };
    }
    throw new Conflict(`no free IPv4 address left in region ${request.region.id}`);
  }
  const base = v6Base(request.region);
  if (!base) throw new Conflict(`region ${request.region.id} has no IPv6 pool`);
  // Block 0 is kept for the region's own infrastructure.
  const found = await allocateIndex(
    db,
    ctx,
    request,
    base.pool,
    base.blocks - 1,
    (i) => `${base.hextets.join(':')}:${(i + 1).toString(16)}::`,
  );
  if (!found) throw new Conflict(`no free IPv6 /64 block left in region ${request.region.id}`);
  const address = request.holderType === 'server' ? `${found}1` : found;
  return { address, version: 6, netmask: '64', gateway: 'fe80::1', prefix: 64 };
}

async function allocateIndex(
  db: Queryable,
  ctx: Platform,
  request: AllocationRequest,
  pool: string,
  count: number,
  addressAt: (index: number) => string,
): Promise<string | null> {
  if (count <= 0) return null;
  for (let attempt = 0; attempt < 4; attempt++) {
    const offered = Array.from({ length: Math.min(offeredPerInsert, count) }, () =>
      addressAt(Math.floor(ctx.random.fraction() * count)),
    );
    const address = await takeFirstFree(db, ctx, request, pool, offered);
    if (address) return address;
  }
  const taken = new Set(await ipAddressRepository.takenAddresses(db, pool));
  let free: string[] = [];
  for (let index = 0; index < count; index++) {
    const address = addressAt(index);
    if (!taken.has(address)) free.push(address);
    if (free.length === offeredPerInsert || (index === count - 1 && free.length)) {
      const found = await takeFirstFree(db, ctx, request, pool, free);
      if (found) return found;
      free = [];
    }
  }
  return null;
}

/** Returns every address the holder has to its pool. */
export async function releaseAddresses(db: Queryable, holderUuid: string): Promise<void> {
  await ipAddressRepository.releaseHolder(db, holderUuid);
}

/**
 * Netmask and gateway of an address already taken from a pool, read back from the pool's
 * name (which carries its CIDR), so they need no column. A server's IPv6 is the first host
 * of its /64 block; the block itself is what the pool row holds.
 */
export function describeAllocated(row: {
  pool: string;
  address: string;
  version: number;
  holder_type: string;
}): Omit<AllocatedAddress, 'prefix'> {
  if (row.version === 6) {
    // Joined, not appended: a flat string, which JSON.stringify writes on its fast path (clock.ts isoSeconds).
    return {
      address: row.holder_type === 'server' ? [row.address, '1'].join('') : row.address,
      version: 6,
      netmask: '64',
      gateway: 'fe80::1',
    };
  }
  let shape = v4PoolShapes.get(row.pool);
  if (!shape) {
    const prefix = Number(row.pool.slice(row.pool.lastIndexOf('/') + 1));
    const network = ipv4ToInt(row.address) & ((0xffffffff << (32 - prefix)) >>> 0);
    shape = { netmask: prefixToNetmask(prefix), gateway: intToIpv4((network + 1) >>> 0) };
    v4PoolShapes.set(row.pool, shape);
  }
  return { address: row.address, version: 4, netmask: shape.netmask, gateway: shape.gateway };
}

/** Netmask and gateway by pool name: the same for every address of a pool. */
const v4PoolShapes = new Map<string, { netmask: string; gateway: string }>();
