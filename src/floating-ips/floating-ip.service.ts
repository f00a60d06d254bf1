// Floating IPs: an IPv4 address (/32) or an IPv6 /64 block from a region's pool, billed
// while held, attachable to one of the account's servers in the same region.

import { isIP } from 'node:net';
import type { Actor, Platform } from '../platform/context.ts';
import { Conflict, Invalid, LimitReached, NotFound } from '../platform/errors.ts';
import { parseRef } from '../platform/ids.ts';
import type { Queryable, Tx } from '../db/database.ts';
import { requirePermission } from '../accounts/permissions.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { requireFunds } from '../billing/funds.ts';
import { firstHourMicros, floatingIpItem } from '../billing/pricing.ts';
import { closeInvoiceItems, openInvoiceItems } from '../billing/invoice-items.ts';
import { allocateAddress, ipv6Gateway, releaseAddresses } from '../network/ip-pool.ts';
import { assertRemovalHoldOver, regionOffering } from '../network/region-rules.ts';
import { type AttachableServer, changeAttachment } from '../network/attachable-server.ts';
import { floatingIpRepository } from './floating-ip.repository.ts';
import type { FloatingIpRow } from './floating-ip.table.ts';
import { transaction } from '../db/transaction.ts';
import { kickPtrPublishing, queuePtr } from '../reverse-dns/reverse-dns.service.ts';
import { ptrName } from '../reverse-dns/ptr-name.ts';

/** A floating IP, as the domain sees it (the API layers shape it for the wire). */
export interface FloatingIp {
  id: number;
  uuid: string;
  regionId: number;
  /** Integer id of the attached server, null when unattached. */
  serverId: number | null;
  address: string;
  netmask: string;
  gateway: string;
  /** Reverse DNS name, null when unset. */
  reverse: string | null;
  /** 32: one IPv4 address; 64: a whole IPv6 block. */
  prefix: number;
  /** Clock ms. */
  createdAt: number;
}

/**
 * The gateway a floating IP is shown with. An IPv6 block is reached through the gateway of the
 * bridge of the server it is routed to, as that server's iface shows (unattached: the region's
 * first bridge), so it is derived, not stored: rows made before this was shown hold fe80::1.
 * `serverIpv4`: the attached server's IPv4, which names its bridge.
 */
function shownGateway(ctx: Platform, row: FloatingIpRow, serverIpv4: string | undefined): string {
  if (row.version !== 6) return row.gateway;
  const region = ctx.catalog.regions.get(row.region_id);
  return (region && ipv6Gateway(region, serverIpv4)) ?? row.gateway;
}

/** The rows as the domain shows them, with the gateways their guests use (one query for attached IPv6 blocks). */
async function withGateways(ctx: Platform, db: Queryable, rows: FloatingIpRow[]): Promise<FloatingIp[]> {
  const attachedBlocks = rows.filter((row) => row.version === 6 && row.server_id !== null);
  const ipv4 = await floatingIpRepository.serversIpv4(
    db,
    attachedBlocks.map((row) => row.server_id as number),
  );
  return rows.map((row) => ({
    ...rowToFloatingIp(row),
    gateway: shownGateway(ctx, row, row.server_id === null ? undefined : ipv4.get(row.server_id)),
  }));
}

export function rowToFloatingIp(row: FloatingIpRow): FloatingIp {
  return {
    id: row.id,
    uuid: row.uuid,
    regionId: row.region_id,
    serverId: row.server_id,
    address: row.address,
    netmask: row.netmask,
    gateway: row.gateway,
    reverse: row.reverse,
    prefix: row.prefix,
    createdAt: row.created_at,
  };
}

export async function listFloatingIps(ctx: Platform, actor: Actor): Promise<FloatingIp[]> {
  return withGateways(ctx, ctx.db, await floatingIpRepository.listByAccount(ctx.db, actor.accountId));
}

export async function createFloatingIp(
  ctx: Platform,
  actor: Actor,
  input: { regionId: string | number; ipVersion: 4 | 6 },
): Promise<FloatingIp> {
  requirePermission(actor, 'floating_ips');
  const region = regionOffering(ctx, input.regionId, 'floating_ip', 'region_id');
  if (input.ipVersion === 6 && !region.features.ipv6)
    throw new Invalid('ip_version', `region ${region.id} does not offer ipv6`);
  const uuid = ctx.random.uuid();
  return transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    const limit = ctx.config.floatingIpsLimit;
    if ((await floatingIpRepository.countForAccount(trx, actor.accountId)) >= limit) {
      throw new LimitReached(
        'floating_ips',
        limit,
        `floating IP limit reached: the account may hold at most ${limit} floating IPs; remove one or ask support for a higher limit`,
      );
    }
    // The price does not depend on the address, so the funds check can come before taking one.
    await requireFunds(ctx, trx, actor.accountId, firstHourMicros([floatingIpItem('')]));
    const allocated = await allocateAddress(ctx, trx, {
      region,
      version: input.ipVersion,
      accountId: actor.accountId,
      holderType: 'floating_ip',
      holderUuid: uuid,
    });
    const row = await floatingIpRepository.insert(trx, {
      uuid,
      accountId: actor.accountId,
      regionId: region.id,
      allocated,
      // A floating IP is routed to the server as a single address (or a whole /64), so its
      // mask is the prefix's, not the pool's.
      netmask: allocated.version === 4 ? '255.255.255.255' : String(allocated.prefix),
      createdAt: ctx.clock.now(),
    });
    await openInvoiceItems(ctx, trx, actor.accountId, uuid, [floatingIpItem(allocated.address)]);
    return { ...rowToFloatingIp(row), gateway: shownGateway(ctx, row, undefined) };
  });
}

async function findOwnedIp(ctx: Platform, db: Queryable, actor: Actor, ref: string | number): Promise<FloatingIpRow> {
  const parsed = parseRef(ref);
  const row = parsed ? await floatingIpRepository.findOwned(db, actor.accountId, parsed, ctx.dialect) : undefined;
  if (!row) throw new NotFound('floating IP');
  return row;
}

/** An address as one canonical text (IPv6 lower-case and compressed), or null when it is none. */
function canonicalAddress(text: string): string | null {
  const address = text.trim().replace(/\/\d{1,3}$/, '');
  const version = isIP(address);
  if (version === 4) return address;
  if (version === 6) return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  return null;
}

/**
 * The caller's floating IP holding this address (an IPv6 block by its address, with or without
 * its /64); 404 when it holds none. Clients of the legacy API name a reserved IP by its address.
 */
export async function findFloatingIpByAddress(ctx: Platform, actor: Actor, address: string): Promise<FloatingIp> {
  const wanted = canonicalAddress(address);
  // An account holds at most FLOATING_IPS_LIMIT of them, so comparing canonical forms here is cheap
  // and finds an address however the client (or the catalog's pool) spelled it.
  const row =
    wanted === null
      ? undefined
      : (await floatingIpRepository.listByAccount(ctx.db, actor.accountId)).find(
          (candidate) => canonicalAddress(candidate.address) === wanted,
        );
  if (!row) throw new NotFound('floating IP');
  return (await withGateways(ctx, ctx.db, [row]))[0]!;
}

export interface AttachmentInput {
  serverId: string | number;
  ipId: string | number;
}

/** Attach and detach: the caller's IP and server the input names, changed in the lock order. */
function changeIpAttachment(
  ctx: Platform,
  actor: Actor,
  input: AttachmentInput,
  change: (trx: Tx, ip: FloatingIpRow, server: AttachableServer) => Promise<boolean>,
): Promise<void> {
  requirePermission(actor, 'floating_ips');
  return changeAttachment(ctx, actor, input.serverId, (trx) => findOwnedIp(ctx, trx, actor, input.ipId), change);
}

/** Attaches the IP to one of the caller's servers in its region; attaching it where it already is changes nothing. */
export async function attachFloatingIp(ctx: Platform, actor: Actor, input: AttachmentInput): Promise<void> {
  await changeIpAttachment(ctx, actor, input, async (trx, ip, server) => {
    if (ip.server_id === server.id) return false;
    if (server.region_id !== ip.region_id) {
      throw new Invalid(
        'server_id',
        `the server is in region ${server.region_id}; floating IP ${ip.address} is in region ${ip.region_id}`,
      );
    }
    if (ip.version === 6 && server.ipv6_enabled !== 1) {
      throw new Invalid(
        'server_id',
        `the server has no IPv6 networking, so it cannot take the IPv6 block ${ip.address}/${ip.prefix}`,
      );
    }
    if (ip.server_id !== null)
      throw new Conflict(`floating IP ${ip.address} is attached to server ${ip.server_id}: detach it first`);
    if (!(await floatingIpRepository.attach(trx, ip.id, server.id)))
      throw new Conflict(`floating IP ${ip.address} was attached meanwhile: detach it first`);
    // Until the customer names it, an attached address answers reverse DNS with its server's hostname.
    if (ip.reverse === null) await queuePtr(ctx, trx, ip.address, ptrName(ip, server));
    return true;
  });
  kickPtrPublishing(ctx);
}

export async function detachFloatingIp(ctx: Platform, actor: Actor, input: AttachmentInput): Promise<void> {
  await changeIpAttachment(ctx, actor, input, async (trx, ip, server) => {
    if (ip.server_id === null) throw new Conflict(`floating IP ${ip.address} is not attached to any server`);
    if (ip.server_id !== server.id || !(await floatingIpRepository.detach(trx, ip.id, server.id))) {
      throw new Conflict(`floating IP ${ip.address} is attached to server ${ip.server_id}, not to server ${server.id}`);
    }
    if (ip.reverse === null) await queuePtr(ctx, trx, ip.address, ptrName(ip, null));
    return true;
  });
  kickPtrPublishing(ctx);
}

/** Removes an unattached IP once the region's hold is over: billing stops, the address returns to the pool. */
export async function removeFloatingIp(ctx: Platform, actor: Actor, ref: string | number): Promise<void> {
  requirePermission(actor, 'floating_ips');
  await transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    const ip = await findOwnedIp(ctx, trx, actor, ref);
    if (ip.server_id !== null)
      throw new Conflict(`floating IP ${ip.address} is attached to server ${ip.server_id}: detach it first`);
    assertRemovalHoldOver(ctx, `floating IP ${ip.address}`, ip.region_id, ip.created_at);
    if (!(await floatingIpRepository.removeUnattached(trx, ip.id)))
      throw new Conflict(`floating IP ${ip.address} was attached meanwhile: detach it first`);
    await closeInvoiceItems(ctx, trx, ip.uuid);
    await releaseAddresses(trx, ip.uuid);
    await queuePtr(ctx, trx, ip.address, null);
  });
  kickPtrPublishing(ctx);
}
