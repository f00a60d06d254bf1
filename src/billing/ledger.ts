// The ledger's one question: how much money does an account have now, and how fast is it
// going? Balance = transactions (credits, minus commit charges) − metered charges of invoice items.
//
// It is read on every account/info, so it never reads an account's history: the transactions and
// the final charges of closed items are a running total on the account row (settled.ts), and
// only the items still open are metered here. Its cost follows the resources an account has now.

import { sql, type Kysely, type RawBuilder } from 'kysely';
import { jsonTuples, objectsOf } from '../db/json-tuples.ts';
import type { Database, Queryable } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';
import type { Platform } from '../platform/context.ts';
import { chargeOfItem, hourlyBurn, HOUR_MS, type MeteredItem } from './metering.ts';

export interface AccountFinance {
  balanceMicros: number;
  /** What the account pays an hour now: amount_hr of each open item whose current hour is not prepaid. */
  burnMicrosPerHour: number;
  /** Seconds until the balance reaches zero at that burn (0 when it already has); null when nothing is billed. */
  secondsDue: number | null;
}

/**
 * One statement, so PostgreSQL reads the settled total and the open items from one snapshot: with
 * two, an item closed in between would be counted in both (or in neither). The unfinalised items
 * (the open ones, and any removed without closeInvoiceItems) come as one JSON array; no row for
 * an unknown account.
 */
const ledgerRow = prepared<[number, number], { settled: number; items: string | unknown[] }>(
  2,
  (db, itemsAccountId, accountId) =>
    db
      .selectFrom('accounts')
      .where('id', '=', accountId)
      .select(['settled_micros as settled', openItemsJson(db, itemsAccountId).as('items')]),
);

/** The settled total and unfinalised items of an account (none for an unknown one). */
async function ledgerOf(db: Queryable, accountId: number): Promise<{ settled: number; items: MeteredItem[] }> {
  const row = await ledgerRow.first(db, accountId, accountId);
  return { settled: Number(row?.settled ?? 0), items: row ? openItemsOf(row.items) : [] };
}

export async function accountFinance(ctx: Platform, db: Queryable, accountId: number): Promise<AccountFinance> {
  const { settled, items } = await ledgerOf(db, accountId);
  return financeOfItems(settled, items, ctx.clock.now());
}

/** The finance of an account from its settled total and its unfinalised items. */
export function financeOfItems(settledMicros: number, items: MeteredItem[], now: number): AccountFinance {
  let balance = settledMicros;
  let burn = 0;
  for (const item of items) {
    balance -= chargeOfItem(item, now);
    burn += hourlyBurn(item, now);
  }
  return { balanceMicros: balance, burnMicrosPerHour: burn, secondsDue: secondsUntilZero(balance, burn) };
}

const itemColumns = [
  'created_at',
  'removed_at',
  'amount_hr_micros',
  'amount_mo_micros',
  'prepaid_until',
] as const satisfies readonly (keyof MeteredItem)[];

/**
 * The account's unfinalised items as one JSON value (read it with openItemsOf): a scalar that can
 * sit beside the account row in one statement, so the row is not repeated once per item.
 */
export function openItemsJson(db: Kysely<Database>, accountId: number): RawBuilder<string | unknown[]> {
  const open = db
    .selectFrom('invoice_items')
    .select(itemColumns)
    .where('account_id', '=', accountId)
    .where('final_charge_micros', 'is', null);
  return jsonTuples(db, open, itemColumns);
}

/** The items of an openItemsJson value (numbers arrive as JSON numbers from either database). */
export const openItemsOf = objectsOf<MeteredItem>(itemColumns);

/**
 * A floor under the account's balance at `now` that needs no metering: the settled total, less
 * every hour an unfinalised item has begun at its hourly price, without the monthly cap or the
 * hours paid up front (both only ever lower a charge). The database sums it over the open items,
 * so the funds check costs the same for an account with one server or a thousand, whatever its history; one expression, so it
 * can join the other reads of a create in one statement (one snapshot on PostgreSQL).
 */
export function balanceFloor(db: Kysely<Database>, accountId: number, now: number): RawBuilder<number> {
  // Bound numbers are REAL on SQLite: cast, so the hours below are integer divisions there too.
  const at = sql<number>`cast(${now} as bigint)`;
  const settled = db.selectFrom('accounts').select('settled_micros').where('id', '=', accountId);
  // An unfinalised item's every hour begun by now (metering's startedHours without removal):
  // ⌊(now − created_at) / 1 h⌋ + 1 once created. Closed items are in the settled total.
  const charged = db
    .selectFrom('invoice_items')
    .select(
      sql<number>`coalesce(sum(case
      when created_at <= ${at} then ((${at} - created_at) / ${sql.lit(HOUR_MS)} + 1) * amount_hr_micros
      else 0 end), 0)`.as('charged'),
    )
    .where('account_id', '=', accountId)
    .where('final_charge_micros', 'is', null);
  return sql<number>`coalesce((${settled}), 0) - ${charged}`;
}

const balanceFloorRow = prepared<[number, number], { balance_floor: number }>(2, (db, accountId, now) =>
  db.selectNoFrom(balanceFloor(db, accountId, now).as('balance_floor')),
);

/** The account's balance floor (see balanceFloor) now, in micro-dollars. */
export async function accountBalanceFloor(ctx: Platform, db: Queryable, accountId: number): Promise<number> {
  const row = await balanceFloorRow.first(db, accountId, ctx.clock.now());
  return Number(row?.balance_floor ?? 0);
}

/** ⌊balance × 3600 / burn⌋ in integers (BigInt: balance × 3600 may pass 2^53 for large balances). */
export function secondsUntilZero(balanceMicros: number, burnMicrosPerHour: number): number | null {
  if (burnMicrosPerHour <= 0) return null;
  if (balanceMicros <= 0) return 0;
  return Number((BigInt(balanceMicros) * 3600n) / BigInt(burnMicrosPerHour));
}

/**
 * The first instant in (from, to] at which the account's balance is at or below zero, to the
 * millisecond, or null when it stays above zero until `to`. Charges only grow with time (no
 * credit arrives in between), so the balance never rises: a binary search over the open items
 * read once. The virtual clock's catch-up uses it to run the out-of-funds sweep when it would have.
 */
export async function outOfFundsAt(db: Queryable, accountId: number, from: number, to: number): Promise<number | null> {
  const { settled, items } = await ledgerOf(db, accountId);
  const balanceAt = (t: number) => financeOfItems(settled, items, t).balanceMicros;
  if (balanceAt(to) > 0) return null;
  let low = from; // above zero (or the caller's starting point)
  let high = to; // at or below zero
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (balanceAt(mid) > 0) low = mid;
    else high = mid;
  }
  return high;
}
