// The legacy v1 objects: each declared once as a TypeBox schema (validation of what we send,
// the OpenAPI document, and the TypeScript type) and mapped from the domain object in one
// named function. Choices the spec leaves open are listed in the decisions table. A field the
// legacy object shows exactly as v1.3's does (same type, same words) is taken from the v1.3
// schema rather than declared again; the others differ on the wire (names, text for numbers,
// the legacy timestamp).

import { isIPv6 } from 'node:net';
import { Type, type Static, type TSchema } from 'typebox';
import type { AccountInfo } from '../../accounts/account.service.ts';
import type { Image, Plan, Region } from '../../catalog/catalog.types.ts';
import { planHourlyMicros } from '../../catalog/listing.service.ts';
import type { FloatingIp } from '../../floating-ips/floating-ip.service.ts';
import type { NetworkInterface, ServerDetails } from '../../servers/server-details.ts';
import type { Snapshot } from '../../snapshots/snapshot.service.ts';
import { toCents, toDollars } from '../../platform/money.ts';
import { Account } from '../v1_3/schemas.ts';
import { ServerSchema } from '../v1_3/server.routes.ts';
import { Snapshot as SnapshotSchema } from '../v1_3/snapshot.routes.ts';
import { legacyTimestamp, Timestamp } from './schemas.ts';

/** A list: a JSON object keyed by each entry's id as a string. */
export function Keyed<T extends TSchema>(entry: T) {
  return Type.Record(Type.String({ pattern: '^\\d+$' }), entry, { description: 'keyed by the id as a string' });
}

export function keyed<T>(entries: T[], idOf: (entry: T) => number): Record<string, T> {
  return Object.fromEntries(entries.map((entry) => [String(idOf(entry)), entry]));
}

export const LegacyAccount = Type.Object(
  {
    ID: Type.Integer({ description: 'the account id (v1.3 id)' }),
    balance: Type.String({
      description: 'USD with two decimals; positive is money available (as v1.3 balance)',
      examples: ['100.00'],
    }),
    activated: Account.properties.activated,
    smtp_allowed: Account.properties.smtp,
    blocked_ports: Account.properties.blocked_ports,
    servers: Account.properties.servers,
    registerdate: Timestamp,
    lastlogin: Timestamp,
  },
  { $id: 'LegacyAccount', description: 'account info in the legacy field names' },
);

export function toLegacyAccount(info: AccountInfo): Static<typeof LegacyAccount> {
  const { account } = info;
  return {
    ID: account.id,
    balance: toCents(info.finance.balanceMicros).toFixed(2),
    activated: account.activated === 1,
    smtp_allowed: account.smtp === 1,
    blocked_ports: info.blockedPorts,
    servers: { limit: account.servers_limit, running: info.running },
    registerdate: legacyTimestamp(account.created_at),
    // Login and register both set it, so it is never empty in practice; the spec shows a string.
    lastlogin: legacyTimestamp(account.last_login_at ?? account.created_at),
  };
}

export const LegacyLocation = Type.Object(
  {
    id: Type.Integer({ description: 'the region id (DCID)' }),
    slug: Type.String(),
    city: Type.String(),
    country: Type.String(),
    latitude: Type.Number(),
    longitude: Type.Number(),
    features: Type.Object({
      ddos_protection: Type.Boolean(),
      block_storage: Type.Boolean(),
      private_networking: Type.Boolean(),
      ipv6: Type.Boolean(),
      backups: Type.Boolean(),
    }),
    operator_id: Type.String({ description: 'empty when the region has no operator id' }),
  },
  { $id: 'LegacyLocation', description: 'a location (legacy)' },
);

export function toLegacyLocation(region: Region): Static<typeof LegacyLocation> {
  const { features } = region;
  return {
    id: region.id,
    slug: region.slug,
    city: region.city,
    country: region.country,
    latitude: region.latitude,
    longitude: region.longitude,
    features: {
      ddos_protection: features.ddos_protection,
      block_storage: features.block_storage,
      private_networking: features.private_networking,
      ipv6: features.ipv6,
      backups: features.backups,
    },
    operator_id: region.operator_id ?? '',
  };
}

export const LegacyTemplate = Type.Object(
  {
    id: Type.Integer({ description: 'the image id (OSID)' }),
    name: Type.String(),
    os_type: Type.String({ enum: ['linux', 'windows'] }),
    os_distro: Type.String(),
    onapp_os_distro: Type.String(),
    min_memory: Type.Integer({ description: 'MB' }),
    min_disk: Type.Integer({ description: 'GB' }),
    hourly_cost: Type.Number({ description: 'licence fee per hour in USD; 0 for free software' }),
  },
  { $id: 'LegacyTemplate', description: 'an operating system or application (legacy)' },
);

/** The legacy os_type knows linux and windows only: other images (FreeBSD) are kept out of the legacy listing. */
export function isLegacyTemplate(image: Image): image is Image & { os_type: 'linux' | 'windows' } {
  return image.os_type === 'linux' || image.os_type === 'windows';
}

export function toLegacyTemplate(image: Image & { os_type: 'linux' | 'windows' }): Static<typeof LegacyTemplate> {
  return {
    id: image.id,
    name: image.name,
    os_type: image.os_type,
    os_distro: image.os_distro,
    onapp_os_distro: image.onapp_os_distro,
    min_memory: image.min_memory_mb,
    min_disk: image.min_disk_gb,
    hourly_cost: toDollars(image.hourly_cost_micros),
  };
}

export const LegacyPlan = Type.Object(
  {
    id: Type.Integer({ description: 'the plan id (PLAN)' }),
    name: Type.String(),
    plan_type: Type.String({ description: "the catalog's plan type in capitals: SSD, CPU, RAM, DEDICATED" }),
    windows: Type.Boolean({ description: "a Windows template of this location fits the plan's disk" }),
    cpu: Type.String({ description: 'vCPUs' }),
    ram: Type.String({ description: 'MB' }),
    disk: Type.String({ description: 'GB' }),
    bandwidth: Type.String({ description: 'TB a month (1 TB = 1000 GB)' }),
    price_per_hour: Type.Number({ description: 'USD: the monthly price over 730 hours' }),
  },
  { $id: 'LegacyPlan', description: 'a plan (legacy)' },
);

export function toLegacyPlan(plan: Plan, runsWindows: boolean): Static<typeof LegacyPlan> {
  return {
    id: plan.id,
    name: plan.name,
    plan_type: plan.plan_type.toUpperCase(),
    windows: runsWindows,
    cpu: String(plan.vcpus),
    ram: String(plan.ram_mb),
    disk: String(plan.disk_gb),
    bandwidth: String(plan.bandwidth_gb / 1000),
    price_per_hour: toDollars(planHourlyMicros(plan)),
  };
}

export const LegacyReservedIp = Type.Object(
  {
    ID: Type.Integer({ description: 'the floating IP id (v1.3 id)' }),
    IP: Type.String({ description: 'the address; for IPv6 the first address of the /64 block' }),
    type: Type.String({ enum: ['v4', 'v6'] }),
    created_at: Timestamp,
    attached_to: Type.Union([Type.Integer(), Type.Null()], { description: 'SUBID of the server it is attached to' }),
    location_id: Type.Integer({ description: 'DCID' }),
  },
  { $id: 'LegacyReservedIp', description: 'a reserved IP (legacy)' },
);

export function toLegacyReservedIp(ip: FloatingIp): Static<typeof LegacyReservedIp> {
  return {
    ID: ip.id,
    IP: ip.address,
    type: isIPv6(ip.address) ? 'v6' : 'v4',
    created_at: legacyTimestamp(ip.createdAt),
    attached_to: ip.serverId,
    location_id: ip.regionId,
  };
}

const V4Interface = Type.Object({
  ip_address: Type.String(),
  netmask: Type.String({ description: 'dotted' }),
  gateway: Type.String(),
  type: Type.String({ enum: ['public', 'private'] }),
});
const V6Interface = Type.Object({
  ip_address: Type.String(),
  netmask: Type.Integer({ description: 'prefix length' }),
  gateway: Type.String(),
  type: Type.String({ enum: ['public', 'private'] }),
});

export const LegacyServer = Type.Object(
  {
    ID: Type.Integer({ description: 'SUBID (v1.3 id)' }),
    price: Type.Number({ description: 'monthly price in USD (as v1.3)' }),
    name: ServerSchema.properties.name,
    power: Type.String({
      description:
        'active (running), stopped, pending (provisioning), or the v1.3 name of a transition under way: booting, stopping, rebooting, rebuilding, reinstalling, resizing, restoring, snapshotting; unknown while the engine cannot be reached (as v1.3)',
    }),
    created: Timestamp,
    iface: Type.Object(
      { v4: Type.Array(V4Interface), v6: Type.Array(V6Interface) },
      { description: 'empty lists while pending; floating IPs show as public' },
    ),
    bandwidth: Type.Object({
      usage: Type.String({ description: 'GB this calendar month' }),
      limit: Type.String({ description: 'GB a month in the plan' }),
    }),
    password: Type.String({ description: 'root password' }),
    ddos_protection: ServerSchema.properties.info.properties.ddos_protection,
  },
  { $id: 'LegacyServer', description: 'a server (legacy)' },
);
type LegacyServerObject = Static<typeof LegacyServer>;

/** The legacy names of the settled states; a transition under way keeps its v1.3 name. */
const legacyPower: Readonly<Record<string, string>> = {
  running: 'active',
  stopped: 'stopped',
  provisioning: 'pending',
};

/** A floating IP is a public address routed to the server: the legacy types know public and private only. */
function legacyType(entry: NetworkInterface): 'public' | 'private' {
  return entry.type === 'private' ? 'private' : 'public';
}

export function toLegacyServer(details: ServerDetails): LegacyServerObject {
  const { row } = details;
  const iface = details.interfaces;
  return {
    ID: row.id,
    price: toCents(details.monthlyPriceMicros),
    name: row.name,
    power: legacyPower[details.power] ?? details.power,
    created: legacyTimestamp(row.created_at),
    iface: {
      v4: (iface?.v4 ?? []).map((entry) => ({
        ip_address: entry.address,
        netmask: entry.netmask,
        gateway: entry.gateway,
        type: legacyType(entry),
      })),
      v6: (iface?.v6 ?? []).map((entry) => ({
        ip_address: entry.address,
        netmask: Number(entry.netmask),
        gateway: entry.gateway,
        type: legacyType(entry),
      })),
    },
    bandwidth: { usage: String(details.bandwidthUsageGb), limit: String(details.plan.bandwidth_gb) },
    password: details.rootPassword,
    ddos_protection: row.ddos_protection === 1,
  };
}

export const LegacySnapshot = Type.Object(
  {
    ID: Type.Integer({ description: 'SNAPSHOTID (v1.3 id)' }),
    label: SnapshotSchema.properties.name,
    created: Timestamp,
  },
  { $id: 'LegacySnapshot', description: 'a snapshot (legacy)' },
);

export function toLegacySnapshot(snapshot: Snapshot): Static<typeof LegacySnapshot> {
  return { ID: snapshot.id, label: snapshot.name, created: legacyTimestamp(snapshot.createdAt) };
}
