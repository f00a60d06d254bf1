// VPCs: private networks of an account in one region. Each has its own /24; member servers
// get a private address from it. Removal needs an empty VPC and the region's hold to be over.

import type { Actor, Platform } from '../platform/context.ts';
import { Conflict, Invalid, NotFound } from '../platform/errors.ts';
import { parseRef } from '../platform/ids.ts';
import type { Tx } from '../db/database.ts';
import { requirePermission } from '../accounts/permissions.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { requireFunds } from '../billing/funds.ts';
import { firstHourMicros, HOURS_PER_MONTH, VPC_MONTHLY_MICROS, type PricedItem } from '../billing/pricing.ts';
import { closeInvoiceItems, openInvoiceItems } from '../billing/invoice-items.ts';
import { findIn } from '../catalog/catalog.ts';
import { assertRemovalHoldOver, regionOffering } from '../network/region-rules.ts';
import { type AttachableServer, changeAttachment } from '../network/attachable-server.ts';
import { vpcRepository } from './vpc.repository.ts';
import { joinVpc, leaveVpc } from './vpc-membership.ts';
import { nextPrivateRange } from './private-range.ts';
import type { VpcRow } from './vpc.table.ts';
import { artifacts } from '../compute/compute-driver.ts';
import { recordIntent } from '../compute/machine-intents.ts';
import { transaction } from '../db/transaction.ts';

/** A private network, as the domain sees it (the API layer shapes it for the wire). */
export interface Vpc {
  id: number;
  uuid: string;
  /** uuids of the member servers, in joining order. */
  serverUuids: string[];
  name: string;
  regionId: number;
  /** Clock ms. */
  createdAt: number;
}

function rowToVpc(row: VpcRow, serverUuids: string[]): Vpc {
  return {
    id: row.id,
    uuid: row.uuid,
    serverUuids,
    name: row.name,
    regionId: row.region_id,
    createdAt: row.created_at,
  };
}

/**
 * What a VPC is billed. VPCs are free today (VPC_MONTHLY_MICROS = 0), and a free VPC opens no
 * invoice item; the funds check still runs, so pricing them later needs no change here.
 */
function vpcItems(name: string): PricedItem[] {
  if (VPC_MONTHLY_MICROS === 0) return [];
  return [
    {
      resourceType: 'vpc',
      description: `VPC ${name}`,
      amountHrMicros: Math.ceil(VPC_MONTHLY_MICROS / HOURS_PER_MONTH),
      amountMoMicros: VPC_MONTHLY_MICROS,
    },
  ];
}

export async function listVpcs(ctx: Platform, actor: Actor): Promise<Vpc[]> {
  const [rows, members] = await Promise.all([
    vpcRepository.listByAccount(ctx.db, actor.accountId),
    vpcRepository.memberUuidsOfAccount(ctx.db, actor.accountId),
  ]);
  const serversOf = new Map<number, string[]>(rows.map((row) => [row.id, []]));
  for (const member of members) serversOf.get(member.vpc_id)?.push(member.server_uuid);
  return rows.map((row) => rowToVpc(row, serversOf.get(row.id) ?? []));
}

/** Inserts a VPC under the account lock the caller holds (the lock serialises the choice of the next free /24). */
async function insertVpc(
  ctx: Platform,
  trx: Tx,
  accountId: number,
  regionId: number,
  name: string,
): Promise<{ uuid: string }> {
  const items = vpcItems(name);
  await requireFunds(ctx, trx, accountId, firstHourMicros(items));
  const row = await vpcRepository.insert(trx, {
    uuid: ctx.random.uuid(),
    accountId,
    regionId,
    name,
    cidr: nextPrivateRange(await vpcRepository.cidrsOfAccount(trx, accountId)),
    createdAt: ctx.clock.now(),
  });
  await openInvoiceItems(ctx, trx, accountId, row.uuid, items);
  return { uuid: row.uuid };
}

export async function createVpc(
  ctx: Platform,
  actor: Actor,
  input: { regionId: string | number; name: string },
): Promise<{ uuid: string }> {
  requirePermission(actor, 'vpcs');
  const region = regionOffering(ctx, input.regionId, 'virtual_private_cloud', 'region_id');
  return transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    return insertVpc(ctx, trx, actor.accountId, region.id, input.name);
  });
}

/**
 * The account's private network in a region: its oldest VPC there, or a new one named
 * "default" when it has none (what the legacy API's private_networking flag joins). Bad input
 * names the fields of the server create it serves (`region`, `vpc`), as server create would.
 */
export async function defaultVpc(ctx: Platform, actor: Actor, regionRef: string | number): Promise<{ uuid: string }> {
  requirePermission(actor, 'vpcs');
  const region = findIn(ctx.catalog.regions, regionRef);
  if (!region) throw new Invalid('region', 'bad value: no region with this id or uuid');
  if (!region.features.virtual_private_cloud) throw new Invalid('vpc', `bad value: region ${region.id} offers no VPCs`);
  return transaction(ctx, async (trx) => {
    // Under the lock, two concurrent calls find or make the same one.
    await lockAccount(ctx, trx, actor.accountId);
    const existing = (await vpcRepository.listByAccount(trx, actor.accountId)).find(
      (vpc) => vpc.region_id === region.id,
    );
    return existing ? { uuid: existing.uuid } : insertVpc(ctx, trx, actor.accountId, region.id, 'default');
  });
}

async function findOwnedVpc(ctx: Platform, trx: Tx, actor: Actor, ref: string | number): Promise<VpcRow> {
  const parsed = parseRef(ref);
  const row = parsed ? await vpcRepository.findOwned(trx, actor.accountId, parsed, ctx.dialect) : undefined;
  if (!row) throw new NotFound('VPC');
  return row;
}

export interface MembershipInput {
  serverId: string | number;
  vpcId: string | number;
}

/** Attach and detach: the caller's VPC and server the input names, changed in the lock order. */
function changeMembership(
  ctx: Platform,
  actor: Actor,
  input: MembershipInput,
  change: (trx: Tx, vpc: VpcRow, server: AttachableServer) => Promise<boolean>,
): Promise<void> {
  requirePermission(actor, 'vpcs');
  return changeAttachment(ctx, actor, input.serverId, (trx) => findOwnedVpc(ctx, trx, actor, input.vpcId), change);
}

/** Joins one of the caller's servers in the VPC's region; a server already in it stays as it is. */
export async function attachVpc(ctx: Platform, actor: Actor, input: MembershipInput): Promise<void> {
  await changeMembership(ctx, actor, input, async (trx, vpc, server) => {
    if (server.region_id !== vpc.region_id) {
      throw new Invalid(
        'server_id',
        `the server is in region ${server.region_id}; VPC ${vpc.name} is in region ${vpc.region_id}`,
      );
    }
    await joinVpc(ctx, trx, vpc, server.id);
    return true;
  });
}

export async function detachVpc(ctx: Platform, actor: Actor, input: MembershipInput): Promise<void> {
  await changeMembership(ctx, actor, input, async (trx, vpc, server) => {
    if (!(await leaveVpc(trx, vpc, server.id)))
      throw new Conflict(`server ${server.uuid} is not attached to VPC ${vpc.uuid}`);
    return true;
  });
}

export async function removeVpc(ctx: Platform, actor: Actor, ref: string | number): Promise<void> {
  requirePermission(actor, 'vpcs');
  await transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    const vpc = await findOwnedVpc(ctx, trx, actor, ref);
    const members = await vpcRepository.memberCount(trx, vpc.id);
    if (members > 0)
      throw new Conflict(
        `VPC ${vpc.name} still has ${members} server${members === 1 ? '' : 's'} attached: detach ${members === 1 ? 'it' : 'them'} first`,
      );
    assertRemovalHoldOver(ctx, `VPC ${vpc.name}`, vpc.region_id, vpc.created_at);
    await closeInvoiceItems(ctx, trx, vpc.uuid);
    await vpcRepository.remove(trx, vpc.id);
    await recordIntent(ctx, trx, artifacts.forgetVpcNetwork(vpc.uuid));
  });
}
