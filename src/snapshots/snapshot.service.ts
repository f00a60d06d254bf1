// Snapshots: taken from a server on request (billed per GB until removed), listed together
// with backups, restored onto a server of the same region whose disk fits, and removed.

import type { Tx } from '../db/database.ts';
import { imageRemoved, imageTaken } from '../events/resource-events.ts';
import type { Actor, Platform } from '../platform/context.ts';
import { Conflict, Invalid, NotFound } from '../platform/errors.ts';
import { parseRef } from '../platform/ids.ts';
import { requirePermission } from '../accounts/permissions.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { firstHourMicros, snapshotItem } from '../billing/pricing.ts';
import { requireFunds } from '../billing/funds.ts';
import { closeInvoiceItems, openInvoiceItems } from '../billing/invoice-items.ts';
import { findServer } from '../servers/server.service.ts';
import { requireMachine } from '../servers/server-actions.service.ts';
import { restoreOnto } from '../servers/server-actions.service.ts';
import { catalogOf } from '../catalog/catalog-of.ts';
import type { ServerRow } from '../servers/server.table.ts';
import { snapshotRepository } from './snapshot.repository.ts';
import type { SnapshotRow } from './snapshot.table.ts';
import { artifacts } from '../compute/compute-driver.ts';
import { changes, imageEstimate, recordIntent } from '../compute/machine-intents.ts';
import { transaction } from '../db/transaction.ts';

/** A snapshot or automatic backup as its account sees it. */
export interface Snapshot {
  id: number;
  uuid: string;
  regionId: number;
  type: 'snapshot' | 'backup';
  name: string;
  /** Uuid of the server it was taken from. */
  serverUuid: string;
  /** When a backup is deleted (clock ms); null for snapshots. */
  expiresAt: number | null;
  /** Still being taken at the time asked. */
  processing: boolean;
  /** Why the engine gave up on the copy (status failed), or null. */
  failure: string | null;
  sizeGb: number;
  /** Clock ms. */
  createdAt: number;
}

export function rowToSnapshot(row: SnapshotRow, now: number): Snapshot {
  return {
    id: row.id,
    uuid: row.uuid,
    regionId: row.region_id,
    type: row.type === 'backup' ? 'backup' : 'snapshot',
    name: row.name,
    serverUuid: row.server_uuid,
    expiresAt: row.expires_at,
    processing: row.failure === null && now < row.ready_at,
    failure: row.failure,
    sizeGb: row.size_gb,
    createdAt: row.created_at,
  };
}

export async function listSnapshots(ctx: Platform, actor: Actor): Promise<Snapshot[]> {
  const now = ctx.clock.now();
  return (await snapshotRepository.listForAccount(ctx.db, actor.accountId)).map((row) => rowToSnapshot(row, now));
}

/**
 * Takes a snapshot of the server's disk as it is at the request: the server shows
 * `snapshotting` until the copy completes (superseding any transition under way, like every
 * action); a later action supersedes it in turn without touching the copy.
 */
export async function createSnapshot(
  ctx: Platform,
  actor: Actor,
  input: { name: string; server_id: string | number },
): Promise<Snapshot> {
  requirePermission(actor, 'snapshots');
  const name = input.name.trim();
  if (name.length === 0 || name.length > 100) throw new Invalid('name', 'bad value: must be 1 to 100 characters');
  return transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    const server = await findServer(ctx, trx, actor.accountId, input.server_id, true);
    // There is no disk to copy.
    requireMachine(server);
    const now = ctx.clock.now();
    const estimate = imageEstimate(ctx, server, now);
    const uuid = ctx.random.uuid();
    const item = snapshotItem(estimate.sizeGb, name);
    await requireFunds(ctx, trx, actor.accountId, firstHourMicros([item]));
    const row = await snapshotRepository.insert(trx, {
      uuid,
      server,
      name,
      sizeGb: estimate.sizeGb,
      readyAt: now + estimate.durationMs,
      createdAt: now,
    });
    await openInvoiceItems(ctx, trx, actor.accountId, uuid, [item]);
    await imageTaken(ctx, trx, row);
    await recordIntent(ctx, trx, changes.snapshot(server, uuid, estimate.sizeGb));
    return rowToSnapshot(row, now);
  });
}

/**
 * A snapshot or backup restorable onto this server: same region, and a disk that holds it (one
 * still processing is restored once it completes).
 */
export function checkRestorable(
  ctx: Platform,
  image: SnapshotRow,
  server: ServerRow,
  field: 'snapshot_id' | 'backup_id',
): void {
  if (image.failure !== null) throw new Conflict(`the ${image.type} failed and holds no disk: ${image.failure}`);
  if (image.region_id !== server.region_id)
    throw new Invalid(
      field,
      `bad value: the ${image.type} is in region ${image.region_id}, the server in ${server.region_id}`,
    );
  const { plan } = catalogOf(ctx, server);
  const needed = Math.max(image.size_gb, ctx.catalog.images.get(image.image_id)?.min_disk_gb ?? 0);
  if (plan.disk_gb < needed)
    throw new Invalid(
      field,
      `bad value: the ${image.type} needs a disk of at least ${needed} GB; the server has ${plan.disk_gb} GB`,
    );
}

async function findImage(
  trx: Tx,
  accountId: number,
  ref: string | number,
  type: 'snapshot' | 'backup' | undefined,
): Promise<SnapshotRow> {
  const parsed = parseRef(ref);
  const row = parsed ? await snapshotRepository.findOwned(trx, accountId, parsed, type) : undefined;
  if (!row) throw new NotFound(type ?? 'snapshot');
  return row;
}

/**
 * Reverts the server to a snapshot (or to one of its own backups, which the snapshot list
 * shows beside the snapshots). `kind` backup accepts backups only.
 */
export async function restoreImage(
  ctx: Platform,
  actor: Actor,
  input: { imageRef: string | number; serverRef: string | number; kind: 'snapshot' | 'backup' },
): Promise<void> {
  requirePermission(actor, input.kind === 'backup' ? 'backups' : 'snapshots');
  const field = input.kind === 'backup' ? 'backup_id' : 'snapshot_id';
  await transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    const server = await findServer(ctx, trx, actor.accountId, input.serverRef, true);
    const image = await findImage(trx, actor.accountId, input.imageRef, input.kind === 'backup' ? 'backup' : undefined);
    if (image.type === 'backup' && image.server_uuid !== server.uuid)
      throw new Invalid(field, 'bad value: a backup restores only onto the server it was taken from');
    checkRestorable(ctx, image, server, field);
    await restoreOnto(ctx, trx, server, image);
  });
}

/**
 * Removes a snapshot or backup (one still being taken too: the copy is abandoned, and a restore
 * already accepted from it still completes); its storage stops being billed.
 */
export async function removeSnapshot(ctx: Platform, actor: Actor, ref: string | number): Promise<void> {
  requirePermission(actor, 'snapshots');
  await transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    const image = await findImage(trx, actor.accountId, ref, undefined);
    await closeInvoiceItems(ctx, trx, image.uuid);
    await snapshotRepository.delete(trx, image.id);
    await recordIntent(ctx, trx, artifacts.forgetImage(image));
    await imageRemoved(ctx, trx, image);
  });
}
