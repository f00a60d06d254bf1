// Opening and closing invoice items: billing starts when a resource exists and stops when
// it is removed (or changes price, e.g. a resize closes one item and opens another); and the
// account's invoice list.

import type { QueryCreator } from 'kysely';
import type { Database, Queryable, Tx } from '../db/database.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { addSettled } from './settled.ts';
import { prepared, type PreparedQuery } from '../db/prepared.ts';
import type { Platform } from '../platform/context.ts';
import { isoOrNull, isoSeconds } from '../platform/clock.ts';
import { toDollars } from '../platform/money.ts';
import type { InvoiceItemRow } from './billing.table.ts';
import { chargeOfItem, startedHours } from './metering.ts';
import { readSnapshot } from './read-snapshot.ts';
import { invoiceItemClosed, invoiceItemsOpened } from '../events/resource-events.ts';
import type { PricedItem } from './pricing.ts';
import { transaction } from '../db/transaction.ts';

/** The columns an opened item sets, in the order its insert binds them. */
const openedColumns = [
  'account_id',
  'resource_type',
  'resource_uuid',
  'description',
  'amount_hr_micros',
  'amount_mo_micros',
  'created_at',
  'prepaid_until',
] as const;
/** Values an opening item binds. */
export const openedItemWidth = openedColumns.length;

// Every billable create opens its items in one insert, prepared for each number of items (a
// server opens one to four), so a create does not build and compile it anew.
const insertsByCount = new Map<number, PreparedQuery<unknown[], never>>();

/** Items about to be opened: the values of their insert, in openedColumns order, item after item. */
export interface OpeningItems {
  count: number;
  values: unknown[];
}

/** What opening `items` for the resource inserts now. */
export function openingItems(
  ctx: Platform,
  accountId: number,
  resourceUuid: string,
  items: PricedItem[],
  prepaidUntil: number | null,
): OpeningItems {
  const now = ctx.clock.now();
  const values = items.flatMap((item) => [
    accountId,
    item.resourceType,
    resourceUuid,
    item.description,
    item.amountHrMicros,
    item.amountMoMicros,
    now,
    prepaidUntil,
  ]);
  return { count: items.length, values };
}

/**
 * The insert of `count` opening items from `values` (real values or a prepared query's
 * placeholders): a statement of its own, or a part of a create's (server.repository.ts).
 */
export function openingItemsInsert(db: QueryCreator<Database>, count: number, values: readonly unknown[]) {
  return db.insertInto('invoice_items').values(
    Array.from({ length: count }, (_, item) => ({
      ...(Object.fromEntries(
        openedColumns.map((column, index) => [column, values[item * openedColumns.length + index]]),
      ) as Pick<InvoiceItemRow, (typeof openedColumns)[number]>),
      removed_at: null,
      final_charge_micros: null,
    })),
  );
}

/** Starts billing the items, leaving their events to the caller (openInvoiceItems records them). */
export async function insertOpeningItems(db: Queryable, opening: OpeningItems): Promise<void> {
  if (opening.count === 0) return;
  let insert = insertsByCount.get(opening.count);
  if (!insert) {
    insert = prepared<unknown[], never>(opening.count * openedColumns.length, (db, ...values) =>
      openingItemsInsert(db, opening.count, values),
    );
    insertsByCount.set(opening.count, insert);
  }
  await insert.run(db, ...opening.values);
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
  await insertOpeningItems(db, openingItems(ctx, accountId, resourceUuid, items, prepaidUntil));
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
  let query = trx
    .selectFrom('invoice_items')
    .selectAll()
    .where('resource_uuid', '=', resourceUuid)
    .where('removed_at', 'is', null);
  if (types?.length) query = query.where('resource_type', 'in', types);
  const items = await query.execute();
  const settledByAccount = new Map<number, number>();
  // The lock order: the accounts first (one in practice), in id order.
  for (const accountId of [...new Set(items.map((item) => item.account_id))].sort((a, b) => a - b))
    await lockAccount(ctx, trx, accountId);
  for (const item of items) {
    const finalCharge = chargeOfItem({ ...item, removed_at: now }, now);
    const closed = await trx
      .updateTable('invoice_items')
      .set({ removed_at: now, final_charge_micros: finalCharge })
      .where('id', '=', item.id)
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    if (Number(closed.numUpdatedRows) === 1) {
      settledByAccount.set(item.account_id, (settledByAccount.get(item.account_id) ?? 0) - finalCharge);
      await invoiceItemClosed(ctx, trx, item, finalCharge);
    }
  }
  for (const [accountId, delta] of settledByAccount) await addSettled(trx, accountId, delta);
}

/** Invoice item of the spec (v1.3 Billing). */
export interface InvoiceItem {
  active: 0 | 1;
  amount_hr: number;
  amount_mo: number;
  resource_type: string;
  usage: number;
  ts_created: string;
  ts_removed: string | null;
}

export function rowToInvoiceItem(row: InvoiceItemRow, now: number): InvoiceItem {
  return {
    active: row.removed_at === null ? 1 : 0,
    // Prices are shown to the micro-dollar: an hourly price is usually a fraction of a cent.
    amount_hr: toDollars(row.amount_hr_micros),
    amount_mo: toDollars(row.amount_mo_micros),
    resource_type: row.resource_type,
    usage: startedHours(row, now),
    ts_created: isoSeconds(row.created_at),
    ts_removed: isoOrNull(row.removed_at),
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
      trx
        .selectFrom('invoice_items')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('id', 'desc')
        .limit(INVOICE_PAGE_SIZE)
        .offset(offset)
        .execute(),
      trx
        .selectFrom('invoice_items')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow(),
    ]),
  );
  return { invoices: rows.map((row) => rowToInvoiceItem(row, now)), meta: { total: Number(total.count) } };
}
