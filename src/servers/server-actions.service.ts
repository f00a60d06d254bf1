// What a server does after it exists: start, stop, reboot, rescue, rebuild, reinstall, resize,
// and the restore a snapshot or backup asks for. Each asks the driver how long it takes and
// records the transition; the shown power follows from the clock. None waits for, or is refused
// by, the transition under way: it supersedes it (power-state.ts). Every path that powers a
// server on obeys the funds rule: start, reboot and rescue of a stopped server answer 402;
// rebuild, reinstall and restore (valid on any server) leave it stopped instead.

import type { Tx } from '../db/database.ts';
import type { Actor, Platform } from '../platform/context.ts';
import { Conflict, Invalid } from '../platform/errors.ts';
import { requirePermission } from '../accounts/permissions.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { findIn, planAvailableIn } from '../catalog/catalog.ts';
import type { Image } from '../catalog/catalog.types.ts';
import { changes, powerChange, powersOn, recordIntent } from '../compute/machine-intents.ts';
import { backupItem, firstHourMicros, machineItems, serverItems, type PricedItem } from '../billing/pricing.ts';
import { mayPowerOn, requireFunds } from '../billing/funds.ts';
import { closeInvoiceItems, openInvoiceItems } from '../billing/invoice-items.ts';
import { billingRepository } from '../billing/billing.repository.ts';
import { catalogOf } from '../catalog/catalog-of.ts';
import { rootPassword } from './server-details.ts';
import { findServer, newRootPassword } from './server.service.ts';
import { settlesStopped, type PowerCommand, type SettledPower } from '../compute/power-state.ts';
import { overageHold, requireUnderAllowance } from './overage-gate.ts';
import { markComputeFault } from '../faults/compute-fault.ts';
import type { ServerRow } from './server.table.ts';
import { isLost, isWithoutMachine, parseConditions } from '../compute/machine-conditions.ts';
import { transaction } from '../db/transaction.ts';

/** Runs a state change on the caller's server, locked for the length of the transaction. */
function onServer<T>(
  ctx: Platform,
  actor: Actor,
  ref: string | number,
  change: (trx: Tx, server: ServerRow) => Promise<T>,
): Promise<T> {
  requirePermission(actor, 'servers');
  return transaction(ctx, async (trx) => {
    // The lock order: the account first (a change may bill or settle), then the server.
    await lockAccount(ctx, trx, actor.accountId);
    markComputeFault(trx, actor.computeFault);
    return change(trx, await findServer(ctx, trx, actor.accountId, ref, true));
  });
}

/**
 * A server without a machine (the engine lost it, or gave up making its disk) is recovered only
 * by an action that makes a new disk (restore, rebuild, reinstall) or by removing the server;
 * every other action answers 409.
 */
export function requireMachine(server: Pick<ServerRow, 'conditions'>): void {
  const conditions = parseConditions(server.conditions);
  if (isWithoutMachine(conditions))
    throw new Conflict(
      `the server's machine is ${isLost(conditions) ? 'lost' : 'not made (the engine could not make its disk)'}: restore a backup or snapshot, rebuild, reinstall or remove the server`,
    );
}

export function powerServer(ctx: Platform, actor: Actor, ref: string | number, command: PowerCommand): Promise<void> {
  return onServer(ctx, actor, ref, async (trx, server) => {
    requireMachine(server);
    const change = powerChange(command, server, ctx.clock.now());
    if (change === null) return; // already where the caller wants it
    // Powering on is what an out-of-funds account may not do (a running server is billed).
    if (powersOn(change, ctx.clock.now())) {
      await requireFunds(ctx, trx, server.account_id, 0, { action: 'start the server' });
      await requireUnderAllowance(ctx, trx, server, 'start the server');
    }
    await recordIntent(ctx, trx, change);
  });
}

/**
 * Boots into the recovery image (enable) or back onto the disk, in either rescue state (asking
 * for the current one reboots into it again); a stopped server comes up, funds permitting.
 */
export function setRescue(ctx: Platform, actor: Actor, ref: string | number, enable: boolean): Promise<void> {
  return onServer(ctx, actor, ref, async (trx, server) => {
    requireMachine(server);
    const change = changes.rescue(server, enable);
    if (powersOn(change, ctx.clock.now())) {
      await requireFunds(ctx, trx, server.account_id, 0, { action: 'boot the server into rescue mode' });
      await requireUnderAllowance(ctx, trx, server, 'boot the server into rescue mode');
    }
    await recordIntent(ctx, trx, change);
  });
}

/**
 * Where a disk-writing action (rebuild, reinstall, restore) leaves the server: running, unless that
 * needs funds it lacks or it is held off for bandwidth overage.
 */
async function settlesAfterWrite(ctx: Platform, trx: Tx, server: ServerRow): Promise<SettledPower> {
  if (!settlesStopped(server, ctx.clock.now())) return 'running';
  if ((await overageHold(ctx, trx, server)) !== null) return 'stopped';
  return (await mayPowerOn(ctx, trx, server.account_id)) ? 'running' : 'stopped';
}

/**
 * A machine's billing paused while it has none (lost, or never made: machine-status.ts): the action that makes it a new disk
 * resumes it, at its current plan and image (a new image's licence then follows, repriceLicence).
 */
async function resumeBilling(ctx: Platform, trx: Tx, server: ServerRow): Promise<void> {
  if (!isWithoutMachine(parseConditions(server.conditions))) return;
  // Asked again before the engine reported the new disk: resumed already.
  if ((await billingRepository.openItemsOfResource(trx, server.uuid, ['server'])).length) return;
  const { plan, image } = catalogOf(ctx, server);
  const items = serverItems({ plan, image, backups: false, ddosProtection: false, name: server.name }).filter((item) =>
    (machineItems as readonly string[]).includes(item.resourceType),
  );
  await openInvoiceItems(ctx, trx, server.account_id, server.uuid, items);
}

/** Bills a change of operating system image: its licence item follows the image. */
async function repriceLicence(ctx: Platform, trx: Tx, server: ServerRow, to: Image): Promise<void> {
  if (to.id === server.image_id) return;
  const { plan } = catalogOf(ctx, server);
  await closeInvoiceItems(ctx, trx, server.uuid, ['license']);
  const licence = serverItems({ plan, image: to, backups: false, ddosProtection: false, name: server.name }).filter(
    (item) => item.resourceType === 'license',
  );
  await openInvoiceItems(ctx, trx, server.account_id, server.uuid, licence);
}

/** Overwrites the disk with an image (a new one, or the server's own for reinstall); a new root password comes with it. */
async function writeImage(
  ctx: Platform,
  trx: Tx,
  server: ServerRow,
  image: Image,
  change: typeof changes.rebuild | typeof changes.reinstall,
): Promise<void> {
  const password = newRootPassword(ctx.random);
  const sealed = ctx.secrets.encrypt(password);
  await resumeBilling(ctx, trx, server);
  await repriceLicence(ctx, trx, server, image);
  await recordIntent(ctx, trx, change(server, image, sealed, await settlesAfterWrite(ctx, trx, server)));
  rootPassword(ctx, server.id, sealed, password);
}

export function rebuildServer(
  ctx: Platform,
  actor: Actor,
  ref: string | number,
  imageRef: string | number,
): Promise<void> {
  return onServer(ctx, actor, ref, async (trx, server) => {
    const image = findIn(ctx.catalog.images, imageRef);
    if (!image)
      throw new Invalid('image_id', 'bad value: no image with this id or uuid (see GET /server/rebuild/{server_id})');
    if (!image.regions.includes(server.region_id))
      throw new Invalid('image_id', `bad value: ${image.name} is not available in region ${server.region_id}`);
    const { plan } = catalogOf(ctx, server);
    if (image.min_disk_gb > plan.disk_gb)
      throw new Invalid(
        'image_id',
        `bad value: ${image.name} needs a disk of at least ${image.min_disk_gb} GB; the server has ${plan.disk_gb} GB`,
      );
    await writeImage(ctx, trx, server, image, changes.rebuild);
  });
}

/** Reinstalls the server's operating system image (a server made from a snapshot gets that snapshot's image, fresh). */
export function reinstallServer(ctx: Platform, actor: Actor, ref: string | number): Promise<void> {
  return onServer(ctx, actor, ref, async (trx, server) => {
    const image = ctx.catalog.images.get(server.image_id);
    if (!image) throw new Conflict("the server's image is no longer offered; rebuild it with another image");
    await writeImage(ctx, trx, server, image, changes.reinstall);
  });
}

/**
 * Moves the server to another plan with a disk at least as large (disks never shrink). A
 * running server is rebooted by it; billing switches to the new price.
 */
export async function resizeServer(
  ctx: Platform,
  actor: Actor,
  ref: string | number,
  planRef: string | number,
): Promise<void> {
  requirePermission(actor, 'servers');
  await transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    const server = await findServer(ctx, trx, actor.accountId, ref, true);
    requireMachine(server);
    const plan = findIn(ctx.catalog.plans, planRef);
    if (!plan)
      throw new Invalid('plan_id', 'bad value: no plan with this id or uuid (see GET /server/resize/{server_id})');
    const current = catalogOf(ctx, server);
    if (plan.id === server.plan_id) throw new Invalid('plan_id', `bad value: the server already has plan ${plan.name}`);
    if (!planAvailableIn(plan, server.region_id))
      throw new Invalid('plan_id', `bad value: plan ${plan.name} is not sold in region ${server.region_id}`);
    if (plan.disk_gb < current.plan.disk_gb)
      throw new Invalid(
        'plan_id',
        `bad value: plan ${plan.name} has a ${plan.disk_gb} GB disk, smaller than the server's ${current.plan.disk_gb} GB; disks cannot shrink`,
      );

    const changed: PricedItem[] = serverItems({
      plan,
      image: current.image,
      backups: false,
      ddosProtection: false,
      name: server.name,
    }).filter((item) => item.resourceType === 'server');
    if (server.backup_enabled === 1) changed.push(backupItem(plan, server.name));
    await requireFunds(ctx, trx, actor.accountId, firstHourMicros(changed));
    await closeInvoiceItems(
      ctx,
      trx,
      server.uuid,
      changed.map((item) => item.resourceType),
    );
    await openInvoiceItems(ctx, trx, server.account_id, server.uuid, changed);
    await recordIntent(ctx, trx, changes.resize(server, plan));
  });
}

/**
 * Reverts the server's disk to a snapshot or backup (checked by the caller); the server comes up
 * on it. A snapshot still being taken is written once it completes: the restore lasts until then.
 */
export async function restoreOnto(
  ctx: Platform,
  trx: Tx,
  server: ServerRow,
  image: { uuid: string; image_id: number; size_gb: number; ready_at: number },
): Promise<void> {
  const target = ctx.catalog.images.get(image.image_id);
  if (!target) throw new Conflict('the image of this snapshot is no longer offered');
  await resumeBilling(ctx, trx, server);
  await repriceLicence(ctx, trx, server, target);
  await recordIntent(ctx, trx, changes.restore(server, image, await settlesAfterWrite(ctx, trx, server)));
}
