// The ledger's one question: how much money does an account have now, and how fast is it
// going? Balance = credits (transactions) − metered charges derived from invoice items and the clock.

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { chargeOfItem } from './metering.ts';

export interface AccountFinance {
  balanceMicros: number;
  /** Sum of amount_hr of the active invoice items. */
  burnMicrosPerHour: number;
}

export async function accountFinance(ctx: Platform, db: Queryable, accountId: number): Promise<AccountFinance> {
  const now = ctx.clock.now();
  const [credit, items] = await Promise.all([
    db.selectFrom('transactions').select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_micros'), eb.lit(0)).as('total')).where('account_id', '=', accountId).executeTakeFirstOrThrow(),
    db.selectFrom('invoice_items').selectAll().where('account_id', '=', accountId).execute(),
  ]);
  let charges = 0;
  let burn = 0;
  for (const item of items) {
    charges += chargeOfItem(item, item.created_at, now);
    if (item.removed_at === null) burn += item.amount_hr_micros;
  }
  return { balanceMicros: Number(credit.total) - charges, burnMicrosPerHour: burn };
}
