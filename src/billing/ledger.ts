// The ledger's one question: how much money does an account have now, and how fast is it
// going? Balance = transactions (credits, minus commit charges) − metered charges of invoice items.
//
// It is read on every account/info, so it never re-meters an account's history: a removed
// item's charge is final and stored when it is closed (closeInvoiceItems), and the database sums
// those and the transactions over covering indexes; only the items still open are metered here.

import type { Queryable } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';
import type { Platform } from '../platform/context.ts';
import { chargeOfItem, hourlyBurn, type MeteredItem } from './metering.ts';

export interface AccountFinance {
  balanceMicros: number;
  /** What the account pays an hour now: amount_hr of each open item whose current hour is not prepaid. */
  burnMicrosPerHour: number;
  /** Seconds until the balance reaches zero at that burn (0 when it already has); null when nothing is billed. */
  secondsDue: number | null;
}

/**
 * One statement, so PostgreSQL reads the sums and the open items from one snapshot: with two, an
 * item closed in between would be counted in both (or in neither). One row per unfinalised item
 * (the open ones, and any removed without closeInvoiceItems), or one row of nulls when there is none.
 */
const ledgerRows = prepared<[number], { credits: number; finalised: number } & { [K in keyof MeteredItem]: MeteredItem[K] | null }>(1, (db, accountId) =>
  db.selectFrom((eb) => eb.selectFrom('transactions')
    .select((s) => s.fn.coalesce(s.fn.sum<number>('amount_micros'), s.lit(0)).as('credits'))
    .where('account_id', '=', accountId)
    .as('t'))
    .crossJoin((eb) => eb.selectFrom('invoice_items')
      .select((s) => s.fn.coalesce(s.fn.sum<number>('final_charge_micros'), s.lit(0)).as('finalised'))
      .where('account_id', '=', accountId)
      .where('final_charge_micros', 'is not', null)
      .as('f'))
    .leftJoin('invoice_items as i', (join) => join.on('i.account_id', '=', accountId).on('i.final_charge_micros', 'is', null))
    .select(['t.credits', 'f.finalised', 'i.created_at', 'i.removed_at', 'i.amount_hr_micros', 'i.amount_mo_micros', 'i.prepaid_until']));

export async function accountFinance(ctx: Platform, db: Queryable, accountId: number): Promise<AccountFinance> {
  const now = ctx.clock.now();
  const rows = await ledgerRows.all(db, accountId);
  const first = rows[0];
  let balance = Number(first?.credits ?? 0) - Number(first?.finalised ?? 0);
  let burn = 0;
  for (const row of rows) {
    if (row.created_at === null) continue;
    const item: MeteredItem = { created_at: row.created_at, removed_at: row.removed_at, amount_hr_micros: row.amount_hr_micros!, amount_mo_micros: row.amount_mo_micros!, prepaid_until: row.prepaid_until };
    balance -= chargeOfItem(item, now);
    burn += hourlyBurn(item, now);
  }
  return { balanceMicros: balance, burnMicrosPerHour: burn, secondsDue: secondsUntilZero(balance, burn) };
}

/** ⌊balance × 3600 / burn⌋ in integers (BigInt: balance × 3600 may pass 2^53 for large balances). */
export function secondsUntilZero(balanceMicros: number, burnMicrosPerHour: number): number | null {
  if (burnMicrosPerHour <= 0) return null;
  if (balanceMicros <= 0) return 0;
  return Number((BigInt(balanceMicros) * 3600n) / BigInt(burnMicrosPerHour));
}
