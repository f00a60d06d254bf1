// The 402 rule: a billable action goes ahead only when the balance is above zero and covers its
// first hour (plus any hours paid up front). Call inside the transaction that creates the
// resource, after lockAccount, so concurrent creates see each other's charges.

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { PaymentRequired } from '../platform/errors.ts';
import { formatMoney } from '../platform/money.ts';
import { accountFinance } from './ledger.ts';

/**
 * Throws PaymentRequired unless the balance covers `costMicros`. An account whose balance has
 * reached zero is out of funds and may create nothing billable, even at no cost; so a server
 * start can call this with 0 to refuse powering on while the account is out of funds.
 */
export async function requireFunds(ctx: Platform, db: Queryable, accountId: number, costMicros: number, action = 'create the resource'): Promise<void> {
  const { balanceMicros } = await accountFinance(ctx, db, accountId);
  if (balanceMicros <= 0 || balanceMicros < costMicros) {
    throw new PaymentRequired(`not enough funds to ${action}: it needs ${formatMoney(costMicros, 6)} USD up front and a balance above zero; the balance is ${formatMoney(balanceMicros, 2)} USD`);
  }
}
