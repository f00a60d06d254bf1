// Everything a Server object shows, assembled for one server or a whole list: catalog entries
// looked up in memory; the servers' own addresses, floating IPs and VPC memberships read once
// in one statement whatever the number of servers, in the same snapshot as the server rows.

import { ptrName } from '../reverse-dns/ptr-name.ts';
import type { Platform } from '../platform/context.ts';
import type { Ref } from '../platform/ids.ts';
import type { Image, Plan, Region } from '../catalog/catalog.types.ts';
import type { Queryable } from '../db/database.ts';
import { catalogOf } from '../catalog/catalog-of.ts';
import { machineFacts } from '../compute/machine-facts.ts';
import { monthTrafficGb } from '../compute/traffic-meter.ts';
import type { MonthReading } from '../compute/traffic.repository.ts';
import { monthBounds } from '../billing/metering.ts';
import { describeAllocated, ipv6Gateway } from '../network/ip-pool.ts';
import { serverItems } from '../billing/pricing.ts';
import { isProvisioning, shownPower } from '../compute/power-state.ts';
import { type Condition, parseConditions } from '../compute/machine-conditions.ts';
import { effectiveOptions, type ServerOptions } from './server-options.ts';
import { overageOf, type Overage } from './overage.ts';
import { scriptState, type ScriptState } from '../compute/script-outcome.ts';
import {
  serverRepository,
  type HeldAddress,
  type ShownRow,
  type ShownServers,
  type VpcMembership,
} from './server.repository.ts';
import type { ServerRow } from './server.table.ts';

export interface NetworkInterface {
  address: string;
  netmask: string;
  gateway: string;
  type: 'public' | 'floating' | 'private';
  reverse: string | null;
}

export interface ServerInterfaces {
  v4: NetworkInterface[];
  /** Null when the server has no IPv6 at all. */
  v6: NetworkInterface[] | null;
}

export interface ServerDetails {
  row: ShownRow;
  region: Region;
  image: Image;
  plan: Plan;
  /** Shown power: the transition under way or the settled state. */
  power: string;
  rootPassword: string;
  /** Null while provisioning. */
  interfaces: ServerInterfaces | null;
  bandwidthUsageGb: number;
  monthlyPriceMicros: number;
  privateNetwork: boolean;
  options: ServerOptions;
  /** Where its bandwidth policy applies, and whether usage has reached it. */
  overage: Overage;
  /** The first-boot script's outcome; null without a script_url. */
  script: ScriptState | null;
  /** The engine's conditions of the machine (src/compute/machine-conditions.ts); empty until the engine reports. */
  conditions: Condition[];
}

/** A public address the server holds, with its reverse name as stored (null: the default). */
export interface PublicAddress {
  address: string;
  version: number;
  netmask: string;
  gateway: string;
  reverse: string | null;
}

export interface AttachedFloatingIp {
  address: string;
  version: number;
  netmask: string;
  gateway: string;
  reverse: string | null;
}

/** What hangs off one server in the network tables. */
export interface ServerNetwork {
  addresses: readonly PublicAddress[];
  floating: readonly AttachedFloatingIp[];
  vpcs: readonly Pick<VpcMembership, 'address' | 'cidr'>[];
}

function netmaskOf(cidr: string): { netmask: string; gateway: string } {
  const [base, bits] = cidr.split('/');
  const prefix = Number(bits);
  const octets = base!.split('.').map(Number);
  const network =
    ((((octets[0]! << 24) >>> 0) + (octets[1]! << 16) + (octets[2]! << 8) + octets[3]!) &
      ((0xffffffff << (32 - prefix)) >>> 0)) >>>
    0;
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  const dotted = (value: number) => [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
  return { netmask: dotted(mask), gateway: dotted((network + 1) >>> 0) };
}

/** The iface object: public address first, then attached floating IPs, then VPC addresses. */
export function interfacesOf(
  row: Pick<ServerRow, 'hostname' | 'ipv6_enabled'>,
  network: ServerNetwork,
  region: Region,
): ServerInterfaces {
  // Every IPv6 address of the server (its own /64, floating blocks) is reached through its bridge's gateway.
  // Read only for a server with IPv6: a list of many IPv4-only servers pays nothing for it.
  const gatewayOf = (shown: string): string =>
    ipv6Gateway(region, network.addresses.find((own) => own.version === 4)?.address) ?? shown;
  const v4: NetworkInterface[] = [];
  const v6: NetworkInterface[] = [];
  for (const own of network.addresses) {
    // Each address shows what its PTR holds: the server's hostname until rdns/put says otherwise.
    const entry: NetworkInterface = {
      address: own.address,
      netmask: own.netmask,
      gateway: own.version === 6 ? gatewayOf(own.gateway) : own.gateway,
      type: 'public',
      reverse: ptrName(own, row),
    };
    (own.version === 6 ? v6 : v4).push(entry);
  }
  for (const ip of network.floating) {
    (ip.version === 6 ? v6 : v4).push({
      address: ip.address,
      netmask: ip.netmask,
      gateway: ip.version === 6 ? gatewayOf(ip.gateway) : ip.gateway,
      type: 'floating',
      reverse: ptrName(ip, row),
    });
  }
  for (const member of network.vpcs)
    v4.push({ address: member.address, ...netmaskOf(member.cidr), type: 'private', reverse: null });
  return { v4, v6: v6.length > 0 || row.ipv6_enabled === 1 ? v6 : null };
}

// A list prices many servers of few kinds: each kind (plan, image, extras) is priced once per catalog.
const pricesByCatalog = new WeakMap<Platform['catalog'], Map<number, number>>();

export function monthlyPriceMicros(
  ctx: Platform,
  row: Pick<ServerRow, 'region_id' | 'plan_id' | 'image_id' | 'backup_enabled' | 'ddos_protection'>,
): number {
  let prices = pricesByCatalog.get(ctx.catalog);
  if (!prices) {
    prices = new Map();
    pricesByCatalog.set(ctx.catalog, prices);
  }
  const kind = ((row.plan_id * 1_000_000 + row.image_id) * 2 + row.backup_enabled) * 2 + row.ddos_protection;
  let price = prices.get(kind);
  if (price === undefined) {
    const { plan, image } = catalogOf(ctx, row);
    const items = serverItems({
      plan,
      image,
      backups: row.backup_enabled === 1,
      ddosProtection: row.ddos_protection === 1,
      name: '',
    });
    price = items.reduce((sum, item) => sum + item.amountMoMicros, 0);
    prices.set(kind, price);
  }
  return price;
}

// Opening a sealed password is the dearest step of listing many servers, so opened ones are
// kept (bounded), by server. The process holds the key that opens them anyway.
const openedByKey = new WeakMap<Platform['secrets'], Map<number, { sealed: string; plain: string }>>();
const maxOpened = 50_000;

/** The server's root password from its sealed text; `plain` records one just sealed. */
export function rootPassword(ctx: Platform, serverId: number, sealed: string, plain?: string): string {
  let opened = openedByKey.get(ctx.secrets);
  if (!opened) {
    opened = new Map();
    openedByKey.set(ctx.secrets, opened);
  }
  const known = opened.get(serverId);
  if (known && known.sealed === sealed) return known.plain;
  const password = plain ?? ctx.secrets.decrypt(sealed);
  if (!known && opened.size >= maxOpened) opened.delete(opened.keys().next().value!);
  opened.set(serverId, { sealed, plain: password });
  return password;
}

/**
 * Details of servers whose networks (one for each row, in order) are already in hand, as for a
 * server being created (`db`: the transaction it is created in); `read`: the instant they were
 * read at and their traffic readings for its month, when the same statement took them.
 */
export async function detailsWith(
  ctx: Platform,
  rows: ShownRow[],
  networks: readonly ServerNetwork[],
  db: Queryable = ctx.db,
  read?: { now: number; readings: readonly MonthReading[] },
): Promise<ServerDetails[]> {
  const now = read?.now ?? ctx.clock.now();
  const usage = await monthTrafficGb(
    ctx,
    db,
    rows.map((row) => machineFacts(ctx, row)),
    now,
    read?.readings,
  );
  return rows.map((row, index) => {
    const catalog = catalogOf(ctx, row);
    const network = networks[index]!;
    const options = effectiveOptions(row.options);
    return {
      row,
      region: catalog.region,
      image: catalog.image,
      plan: catalog.plan,
      power: shownPower(row, now),
      rootPassword: rootPassword(ctx, row.id, row.password_sealed),
      interfaces: isProvisioning(row, now) ? null : interfacesOf(row, network, catalog.region),
      bandwidthUsageGb: usage.get(row.uuid) ?? 0,
      monthlyPriceMicros: monthlyPriceMicros(ctx, row),
      privateNetwork: network.vpcs.length > 0,
      options,
      overage: overageOf(options, catalog.plan.bandwidth_gb, usage.get(row.uuid) ?? 0),
      script: scriptState(row.script_url, row.script_outcome, Boolean(ctx.compute.engine)),
      conditions: parseConditions(row.conditions),
    };
  });
}

/** A server's own address with the netmask and gateway of its pool. */
function publicAddress(held: HeldAddress): PublicAddress {
  const { address, netmask, gateway } = describeAllocated({
    pool: held.pool,
    address: held.address,
    version: held.version,
    holder_type: 'server',
  });
  return { address, version: held.version, netmask, gateway, reverse: held.reverse };
}

/** What is attached to each server: a network for each row, in order. */
function networksOf(shown: ShownServers): ServerNetwork[] {
  const addresses = grouped(shown.held, (address) => address.holder_uuid, publicAddress);
  const floatingIps = grouped(
    shown.floating,
    (ip) => ip.server_id!,
    (ip) => ip,
  );
  const memberships = grouped(
    shown.memberships,
    (member) => member.server_id,
    (member) => member,
  );
  // Most servers have no floating IP and no VPC: they share one empty list rather than each making its own.
  return shown.rows.map((row) => ({
    addresses: addresses.get(row.uuid) ?? empty,
    floating: floatingIps.get(row.id) ?? empty,
    vpcs: memberships.get(row.id) ?? empty,
  }));
}

const empty: readonly never[] = Object.freeze([]);

/** The items' values by key, in the items' order. */
function grouped<T, K, V>(items: readonly T[], keyOf: (item: T) => K, valueOfItem: (item: T) => V): Map<K, V[]> {
  const groups = new Map<K, V[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(valueOfItem(item));
    else groups.set(key, [valueOfItem(item)]);
  }
  return groups;
}

/**
 * The account's servers (or the one `ref` names) with everything a Server object shows, read in
 * one statement (one snapshot: a server removed meanwhile never shows without its addresses).
 */
export async function loadDetails(ctx: Platform, accountId: number, ref?: Ref): Promise<ServerDetails[]> {
  // The month's traffic comes in the same statement as the servers: the month of `now`.
  const now = ctx.clock.now();
  const shown = await serverRepository.shownWithNetworks(ctx.db, ctx.dialect, accountId, monthBounds(now).start, ref);
  return shown.rows.length
    ? detailsWith(ctx, shown.rows, networksOf(shown), ctx.db, { now, readings: shown.readings })
    : [];
}
