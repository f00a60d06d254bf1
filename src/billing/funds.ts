// The 402 rule: a billable action goes ahead only when the balance covers its first hour
// (plus any hours paid up front). Call inside the transaction that creates the resource,
// after lockAccount, so concurrent creates see each other's charges.

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { PaymentRequired } from '../platform/errors.ts';
import { formatMoney } from '../platform/money.ts';
import { accountFinance } from './ledger.ts';

export async function requireFunds(ctx: Platform, db: Queryable, accountId: number, costMicros: number): Promise<void> {
  const { balanceMicros } = await accountFinance(ctx, db, accountId);
  if (balanceMicros < costMicros) {
    throw new PaymentRequired(`not enough funds to create the resource: it needs ${formatMoney(costMicros, 6)} USD up front, the balance is ${formatMoney(balanceMicros, 2)} USD`);
  }
}
