// Opening and closing invoice items: billing starts when a resource exists and stops when
// it is removed (or changes price, e.g. a resize closes one item and opens another); and the
// account's invoice list.

import type { Queryable, Tx } from '../db/database.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { addSettled } from './settled.ts';
import { billingRepository, insertOpeningItems, type OpeningItems, openingItemsOf } from './billing.repository.ts';
import type { Platform } from '../platform/context.ts';
import type { InvoiceItemRow } from './billing.table.ts';
import { chargeOfItem, startedHours } from './metering.ts';
import { readSnapshot } from './read-snapshot.ts';
import { invoiceItemClosed, invoiceItemsOpened } from '../events/resource-events.ts';
import type { PricedItem } from './pricing.ts';
import { transaction } from '../db/transaction.ts';

/**
 * What opening `items` for the resource at `openedAt` inserts: the instant the resource came to
 * be, read once by its creator, so its items and its own timestamps agree to the millisecond.
 */
export function openingItems(
  openedAt: number,
  accountId: number,
  resourceUuid: string,
  items: PricedItem[],
  prepaidUntil: number | null,
): OpeningItems {
  return openingItemsOf({ accountId, resourceUuid, items, openedAt, prepaidUntil });
}

/** Starts billing the resource's items, and records their events. */
export async function openInvoiceItems(
  ctx: Platform,
  db: Queryable,
  accountId: number,
  resourceUuid: string,
  items: PricedItem[],
  prepaidUntil: number | null = null,
): Promise<void> {
  if (items.length === 0) return;
  await insertOpeningItems(db, openingItems(ctx.clock.now(), accountId, resourceUuid, items, prepaidUntil));
  await invoiceItemsOpened(ctx, db, accountId, resourceUuid, items);
}

/**
 * Stops billing the resource's open items (all, or only those of the given types) and writes
 * each one's final charge, moving it into the account's settled total (settled.ts). Each row is
 * closed by a conditional update, so two removals racing on the same resource close it once and
 * count it once. Takes the account lock before it writes an item (the lock order: account first).
 */
export async function closeInvoiceItems(
  ctx: Platform,
  db: Queryable,
  resourceUuid: string,
  types?: PricedItem['resourceType'][],
): Promise<void> {
  if (!db.isTransaction) {
    await transaction(ctx, (trx) => closeInvoiceItems(ctx, trx, resourceUuid, types));
    return;
  }
  const trx = db as Tx;
  const now = ctx.clock.now();
  const items = await billingRepository.openItemsOfResource(trx, resourceUuid, types);
  const settledByAccount = new Map<number, number>();
  // The lock order: the accounts first (one in practice), in id order.
  for (const accountId of [...new Set(items.map((item) => item.account_id))].sort((a, b) => a - b))
    await lockAccount(ctx, trx, accountId);
  for (const item of items) {
    const finalCharge = chargeOfItem({ ...item, removed_at: now }, now);
    if (await billingRepository.closeItem(trx, item.id, now, finalCharge)) {
      settledByAccount.set(item.account_id, (settledByAccount.get(item.account_id) ?? 0) - finalCharge);
      await invoiceItemClosed(ctx, trx, item, finalCharge);
    }
  }
  for (const [accountId, delta] of settledByAccount) await addSettled(trx, accountId, delta);
}

/** An invoice item as the domain holds it (the API shows the spec's Invoice item object). */
export interface InvoiceItem {
  resourceType: string;
  /** The billed resource's uuid. */
  resourceUuid: string;
  /** What is billed, naming the resource (`web-1 (Small)`, `snapshot nightly (25 GB)`). */
  description: string;
  amountHrMicros: number;
  amountMoMicros: number;
  /** Hours started by `now`, including hours paid up front. */
  usageHours: number;
  createdAt: number;
  /** Null while the resource is billed. */
  removedAt: number | null;
}

export function rowToInvoiceItem(row: InvoiceItemRow, now: number): InvoiceItem {
  return {
    resourceType: row.resource_type,
    resourceUuid: row.resource_uuid,
    description: row.description,
    amountHrMicros: row.amount_hr_micros,
    amountMoMicros: row.amount_mo_micros,
    usageHours: startedHours(row, now),
    createdAt: row.created_at,
    removedAt: row.removed_at,
  };
}

/** Items per page of the invoice list; `start_id` steps through older pages by this much. */
export const INVOICE_PAGE_SIZE = 25;

/** The account's invoice items, newest first, 25 from `offset` (the spec's start_id). */
export async function listInvoiceItems(
  ctx: Platform,
  accountId: number,
  offset = 0,
): Promise<{ invoices: InvoiceItem[]; meta: { total: number } }> {
  const now = ctx.clock.now();
  // One snapshot: the page and the total agree even while items are being opened.
  const [rows, total] = await readSnapshot(ctx, (trx) =>
    Promise.all([
      billingRepository.itemsPage(trx, accountId, INVOICE_PAGE_SIZE, offset),
      billingRepository.itemCount(trx, accountId),
    ]),
  );
  return { invoices: rows.map((row) => rowToInvoiceItem(row, now)), meta: { total } };
}
