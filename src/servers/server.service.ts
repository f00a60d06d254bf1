// Servers: create (validation, limit, funds, addresses, billing, first boot), list, info,
// remove, and the images and plans a server can be rebuilt or resized to.

import { ptrName } from '../reverse-dns/ptr-name.ts';
import type { Queryable, Tx } from '../db/database.ts';
import type { Actor, Platform } from '../platform/context.ts';
import { Conflict, Forbidden, Invalid, NotFound, type FieldProblem } from '../platform/errors.ts';
import { parseRef } from '../platform/ids.ts';
import type { RandomSource } from '../platform/random.ts';
import { upfrontCommitNote } from '../billing/ledger-notes.ts';
import { requirePermission } from '../accounts/permissions.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { findIn, planAvailableIn } from '../catalog/catalog.ts';
import type { Image, Plan, Region } from '../catalog/catalog.types.ts';
import { firstHourMicros, serverItems } from '../billing/pricing.ts';
import { requireFunds } from '../billing/funds.ts';
import { closeInvoiceItems, openingItems } from '../billing/invoice-items.ts';
import { recordTransaction } from '../billing/transaction.service.ts';
import { allocateAddress, describeAllocated, releaseAddresses, type AllocatedAddress } from '../network/ip-pool.ts';
import { sshKeyRepository } from '../ssh-keys/ssh-key.repository.ts';
import { vpcRepository } from '../vpcs/vpc.repository.ts';
import { joinVpc } from '../vpcs/vpc-membership.ts';
import { snapshotRepository } from '../snapshots/snapshot.repository.ts';
import type { SnapshotRow } from '../snapshots/snapshot.table.ts';
import { changes, recordIntent } from '../compute/machine-intents.ts';
import { hostnameProblem } from './hostname.ts';
import { detailsWith, loadDetails, rootPassword, type ServerDetails, type ServerNetwork } from './server-details.ts';
import { serverRepository } from './server.repository.ts';
import { serverCreated, serverRemoved } from '../events/resource-events.ts';
import type { EventCause } from '../events/event.service.ts';
import { markComputeFault } from '../faults/compute-fault.ts';
import type { ServerRow } from './server.table.ts';
import { transaction } from '../db/transaction.ts';
import { isHttpUrl } from '../platform/http-url.ts';
import { kickPtrPublishing, queuePtr } from '../reverse-dns/reverse-dns.service.ts';

export interface CreateServerInput {
  hostname: string;
  label: string;
  region: string | number;
  image: string | number;
  plan: string | number;
  ddos_protection?: boolean;
  auto_backups?: boolean;
  ipv6_networking?: boolean;
  ssh_key?: string | number;
  script_url?: string;
  /** os (the default), app, snapshot or iso. */
  image_type?: string;
  commit?: number;
  vpc?: string | number;
}

/** Upper bound of `commit`: a year of hours paid up front. */
export const MAX_COMMIT_HOURS = 8760;
const hourMs = 3_600_000;

/** The account's server by id or uuid, or 404; `lock` for a state change (row lock on PostgreSQL). */
export async function findServer(
  ctx: Platform,
  db: Queryable,
  accountId: number,
  ref: string | number,
  lock = false,
): Promise<ServerRow> {
  const parsed = parseRef(ref);
  const row = parsed
    ? await serverRepository.findOwned(db, accountId, parsed, lock && ctx.dialect === 'postgres')
    : undefined;
  if (!row) throw new NotFound('server');
  return row;
}

const passwordAlphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** A 20-character root password (about 116 bits) without look-alike characters. */
export function newRootPassword(random: RandomSource): string {
  const characters: string[] = [];
  while (characters.length < 20) {
    for (const byte of random.bytes(32)) {
      // Reject the top of the byte range so every character is equally likely.
      if (byte < passwordAlphabet.length * Math.floor(256 / passwordAlphabet.length) && characters.length < 20)
        characters.push(passwordAlphabet[byte % passwordAlphabet.length]!);
    }
  }
  // Joined rather than appended: a flat string, which JSON.stringify writes on its fast path
  // (the password is kept opened and sent in every list).
  return characters.join('');
}

interface CheckedCreate {
  region: Region;
  plan: Plan;
  /** The catalog image; for image_type snapshot, resolved from the snapshot in the transaction. */
  image: Image | null;
}

/** Rules on the create body that need no storage; every bad field in one 400. */
function checkCreate(ctx: Platform, input: CreateServerInput): CheckedCreate {
  const problems: FieldProblem[] = [];
  const hostnameIssue = hostnameProblem(input.hostname.trim());
  if (hostnameIssue) problems.push({ field: 'hostname', reason: hostnameIssue });
  const label = input.label.trim();
  if (label.length === 0 || label.length > 100)
    problems.push({ field: 'label', reason: 'bad value: must be 1 to 100 characters' });

  const region = findIn(ctx.catalog.regions, input.region);
  if (!region)
    problems.push({ field: 'region', reason: 'bad value: no region with this id or uuid (see GET /region/list)' });
  else if (!region.features.instances)
    problems.push({ field: 'region', reason: `bad value: region ${region.id} offers no servers` });

  const plan = findIn(ctx.catalog.plans, input.plan);
  if (!plan) problems.push({ field: 'plan', reason: 'bad value: no plan with this id or uuid (see GET /plan/list)' });
  else if (region && !planAvailableIn(plan, region.id))
    problems.push({ field: 'plan', reason: `bad value: plan ${plan.name} is not sold in region ${region.id}` });

  let image: Image | null = null;
  const imageType = input.image_type ?? 'os';
  if (imageType === 'iso') {
    problems.push({
      field: 'image_type',
      reason: 'bad value: custom ISO images are not offered; use an os or app image, or a snapshot',
    });
  } else if (imageType !== 'snapshot') {
    image = findIn(ctx.catalog.images, input.image) ?? null;
    if (!image)
      problems.push({ field: 'image', reason: 'bad value: no image with this id or uuid (see GET /image/list)' });
    else if (input.image_type === 'app' && image.type !== 'app')
      problems.push({ field: 'image', reason: `bad value: ${image.name} is not an app image` });
    else if (region && !image.regions.includes(region.id))
      problems.push({ field: 'image', reason: `bad value: ${image.name} is not available in region ${region.id}` });
    else if (plan && plan.disk_gb < image.min_disk_gb)
      problems.push({
        field: 'plan',
        reason: `bad value: ${image.name} needs a disk of at least ${image.min_disk_gb} GB; plan ${plan.name} has ${plan.disk_gb} GB`,
      });
  } else if (!parseRef(input.image)) {
    problems.push({
      field: 'image',
      reason: 'bad value: with image_type snapshot, image is the id or uuid of one of your snapshots',
    });
  }

  if (region) {
    if (input.ddos_protection && !region.features.ddos_protection)
      problems.push({ field: 'ddos_protection', reason: `bad value: region ${region.id} offers no DDoS protection` });
    if (input.auto_backups && !region.features.backups)
      problems.push({ field: 'auto_backups', reason: `bad value: region ${region.id} offers no backups` });
    if (input.ipv6_networking && (!region.features.ipv6 || !region.pools.v6))
      problems.push({ field: 'ipv6_networking', reason: `bad value: region ${region.id} offers no IPv6` });
    if (input.vpc !== undefined && !region.features.virtual_private_cloud)
      problems.push({ field: 'vpc', reason: `bad value: region ${region.id} offers no VPCs` });
  }
  if (input.script_url !== undefined && !(isHttpUrl(input.script_url) && input.script_url.length <= 2048))
    problems.push({ field: 'script_url', reason: 'bad value: must be an http or https URL' });
  const commit = input.commit ?? 0;
  if (!Number.isInteger(commit) || commit < 0 || commit > MAX_COMMIT_HOURS)
    problems.push({ field: 'commit', reason: `bad value: whole hours from 0 to ${MAX_COMMIT_HOURS}` });

  if (problems.length) throw new Invalid(problems);
  return { region: region!, plan: plan!, image };
}

/** The caller's completed snapshot to create a server from, in the server's region, fitting its plan. */
async function snapshotImage(
  ctx: Platform,
  trx: Tx,
  accountId: number,
  ref: string | number,
  region: Region,
  plan: Plan,
): Promise<{ snapshot: SnapshotRow; image: Image }> {
  const parsed = parseRef(ref);
  const snapshot = parsed ? await snapshotRepository.findOwned(trx, accountId, parsed) : undefined;
  if (!snapshot) throw new NotFound('snapshot');
  if (snapshot.failure !== null) throw new Conflict(`the snapshot failed and holds no disk: ${snapshot.failure}`);
  // A snapshot still processing is a valid source: provisioning lasts until it completes (createServer).
  if (snapshot.region_id !== region.id)
    throw new Invalid('region', `bad value: the snapshot is in region ${snapshot.region_id}; create the server there`);
  const image = ctx.catalog.images.get(snapshot.image_id);
  if (!image) throw new Invalid('image', "bad value: the snapshot's operating system image is no longer offered");
  const needed = Math.max(snapshot.size_gb, image.min_disk_gb);
  if (plan.disk_gb < needed)
    throw new Invalid(
      'plan',
      `bad value: the snapshot needs a disk of at least ${needed} GB; plan ${plan.name} has ${plan.disk_gb} GB`,
    );
  return { snapshot, image };
}

/** The caller's own resources the create body names, read in its transaction; another account's is a 404 like a missing one. */
async function ownedReferences(
  ctx: Platform,
  trx: Tx,
  accountId: number,
  input: CreateServerInput,
  checked: CheckedCreate,
) {
  let image = checked.image;
  let sourceSnapshot: SnapshotRow | null = null;
  if (!image)
    ({ snapshot: sourceSnapshot, image } = await snapshotImage(
      ctx,
      trx,
      accountId,
      input.image,
      checked.region,
      checked.plan,
    ));
  const sshRef = input.ssh_key !== undefined ? parseRef(input.ssh_key) : null;
  const sshKey = sshRef ? await sshKeyRepository.findOwned(trx, accountId, sshRef) : undefined;
  if (input.ssh_key !== undefined && !sshKey) throw new NotFound('ssh_key');
  const vpcRef = input.vpc !== undefined ? parseRef(input.vpc) : null;
  const vpc = vpcRef ? await vpcRepository.findOwned(trx, accountId, vpcRef) : undefined;
  if (input.vpc !== undefined && !vpc) throw new NotFound('vpc');
  if (vpc && vpc.region_id !== checked.region.id)
    throw new Invalid(
      'vpc',
      `bad value: the VPC is in region ${vpc.region_id}, the server would be in ${checked.region.id}`,
    );
  return { image, sourceSnapshot, sshKey, vpc };
}

export async function createServer(ctx: Platform, actor: Actor, input: CreateServerInput): Promise<ServerDetails> {
  requirePermission(actor, 'servers');
  if (input.auto_backups) requirePermission(actor, 'backups');
  const checked = checkCreate(ctx, input);
  const { region, plan } = checked;
  const commit = input.commit ?? 0;
  const label = input.label.trim();
  const password = newRootPassword(ctx.random);
  const sealedPassword = ctx.secrets.encrypt(password);

  const created = await transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    markComputeFault(trx, actor.computeFault);
    const now = ctx.clock.now();
    const { limit, count, balanceFloorMicros } = await serverRepository.createChecks(trx, actor.accountId, now);
    if (count >= limit)
      throw new Forbidden(
        `servers.limit reached: the account may have at most ${limit} servers; remove one or ask for a higher limit`,
      );

    const { image, sourceSnapshot, sshKey, vpc } = await ownedReferences(ctx, trx, actor.accountId, input, checked);

    const items = serverItems({
      plan,
      image,
      backups: input.auto_backups === true,
      ddosProtection: input.ddos_protection === true,
      name: label,
    });
    const upfront = commit * firstHourMicros(items);
    await requireFunds(ctx, trx, actor.accountId, firstHourMicros(items) + upfront, { balanceFloorMicros });

    const uuid = ctx.random.uuid();
    const v4 = await allocateAddress(ctx, trx, {
      region,
      version: 4,
      accountId: actor.accountId,
      holderType: 'server',
      holderUuid: uuid,
    });
    const v6: AllocatedAddress | null = input.ipv6_networking
      ? await allocateAddress(ctx, trx, {
          region,
          version: 6,
          accountId: actor.accountId,
          holderType: 'server',
          holderUuid: uuid,
        })
      : null;
    const facts = { uuid, plan, image, createdAt: now, power: 'running', action: null, actionUntil: null };
    const provisioning = await recordIntent(
      ctx,
      trx,
      changes.create(facts, sourceSnapshot?.ready_at ?? now, region.id),
    );

    // Billing starts with the server (its items inserted with it); their events are recorded below.
    const billed = openingItems(now, actor.accountId, uuid, items, commit > 0 ? now + commit * hourMs : null);
    const row = await serverRepository.insert(
      trx,
      ctx.dialect,
      {
        uuid,
        accountId: actor.accountId,
        label,
        hostname: input.hostname.trim(),
        regionId: region.id,
        imageId: image.id,
        planId: plan.id,
        sourceSnapshotUuid: sourceSnapshot?.uuid ?? null,
        passwordSealed: sealedPassword,
        ipv6: v6 !== null,
        ddosProtection: input.ddos_protection === true,
        autoBackups: input.auto_backups === true,
        privateNetwork: vpc !== undefined,
        scriptUrl: input.script_url ?? null,
        sshKeyId: sshKey?.id ?? null,
        provisioning,
        createdAt: now,
      },
      billed,
    );
    const vpcs = vpc ? [{ address: await joinVpc(ctx, trx, vpc, row.id), cidr: vpc.cidr }] : [];
    const network: ServerNetwork = {
      addresses: [v4, ...(v6 ? [v6] : [])].map((a) => ({ ...a, reverse: null })),
      floating: [],
      vpcs,
    };

    await serverCreated(ctx, trx, row, items);
    if (commit > 0) {
      await recordTransaction(ctx, trx, {
        accountId: actor.accountId,
        amountMicros: -upfront,
        ptype: 'commit',
        note: upfrontCommitNote(commit, { label, uuid }, upfront),
      });
    }
    // Every public address answers reverse DNS with the hostname until rdns/put names another.
    for (const address of network.addresses) await queuePtr(ctx, trx, address.address, ptrName(address, row));
    rootPassword(ctx, row.id, sealedPassword, password);
    // A server made a moment ago has moved no traffic the meter holds: no statement asks for its readings.
    const [details] = await detailsWith(ctx, [row], [network], trx, { now: ctx.clock.now(), readings: [] });
    return details!;
  });
  kickPtrPublishing(ctx);
  return created;
}

export function listServers(ctx: Platform, actor: Actor): Promise<ServerDetails[]> {
  return loadDetails(ctx, actor.accountId);
}

export async function serverInfo(ctx: Platform, actor: Actor, ref: string | number): Promise<ServerDetails> {
  const parsed = parseRef(ref);
  const [details] = parsed ? await loadDetails(ctx, actor.accountId, parsed) : [];
  if (!details) throw new NotFound('server');
  return details;
}

/**
 * Removes a server at once, whatever it is doing: billing stops, its addresses go back to the
 * pool, floating IPs and VPCs let go of it, its backups go with it; its snapshots stay.
 */
export async function removeServer(ctx: Platform, actor: Actor, ref: string | number): Promise<void> {
  requirePermission(actor, 'servers');
  await transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    await removeServerRow(ctx, trx, await findServer(ctx, trx, actor.accountId, ref, true));
  });
  kickPtrPublishing(ctx);
}

/** What removing a server does, on a row the caller found and locked after locking its account (the owner's or the operator's remove). */
export async function removeServerRow(
  ctx: Platform,
  trx: Tx,
  server: ServerRow,
  cause: EventCause = 'customer',
): Promise<void> {
  await closeInvoiceItems(ctx, trx, server.uuid);
  await forgetServerPtrs(ctx, trx, server);
  await releaseAddresses(trx, server.uuid);
  await serverRepository.detachFromNetworks(trx, server.id);
  await snapshotRepository.deleteBackupsOf(trx, server.uuid);
  await serverRepository.delete(trx, server.id);
  await serverRemoved(ctx, trx, server, cause);
  await recordIntent(ctx, trx, changes.remove(server));
}

/**
 * Queues the removal of the PTRs a server's going takes away: its own addresses', and those of
 * the floating IPs it lets go of that showed its hostname (one the customer named stays).
 */
async function forgetServerPtrs(ctx: Platform, trx: Tx, server: ServerRow): Promise<void> {
  for (const own of await serverRepository.publicAddresses(trx, server.uuid))
    await queuePtr(ctx, trx, describeAllocated(own).address, null);
  for (const floating of await serverRepository.attachedFloatingIps(trx, server.id))
    if (floating.reverse === null) await queuePtr(ctx, trx, floating.address, null);
}

/** Images the server can be rebuilt with: offered in its region and fitting its disk. */
export async function rebuildImages(ctx: Platform, actor: Actor, ref: string | number): Promise<Image[]> {
  const server = await findServer(ctx, ctx.db, actor.accountId, ref);
  const plan = ctx.catalog.plans.get(server.plan_id);
  return [...ctx.catalog.images.values()].filter(
    (image) => image.regions.includes(server.region_id) && (!plan || image.min_disk_gb <= plan.disk_gb),
  );
}

/** Plans the server can be resized to: sold in its region, with a disk at least as large. */
export async function resizePlans(ctx: Platform, actor: Actor, ref: string | number): Promise<Plan[]> {
  const server = await findServer(ctx, ctx.db, actor.accountId, ref);
  const current = ctx.catalog.plans.get(server.plan_id);
  return [...ctx.catalog.plans.values()].filter(
    (plan) =>
      plan.id !== server.plan_id && planAvailableIn(plan, server.region_id) && plan.disk_gb >= (current?.disk_gb ?? 0),
  );
}
