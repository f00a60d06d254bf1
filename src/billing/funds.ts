// The 402 rule: a billable action goes ahead only when the balance is above zero and covers its
// first hour (plus any hours paid up front). Call inside the transaction that creates the
// resource, after lockAccount, so concurrent creates see each other's charges.

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { PaymentRequired } from '../platform/errors.ts';
import { formatMoney } from '../platform/money.ts';
import { accountBalanceFloor, accountFinance } from './ledger.ts';

export interface FundsCheck {
  /** What the 402 says the caller wanted to do. */
  action?: string;
  /** The account's balance floor (ledger.ts balanceFloor), when the caller has read it with its other checks. */
  balanceFloorMicros?: number;
}

/**
 * Throws PaymentRequired unless the balance covers `costMicros`. An account whose balance has
 * reached zero is out of funds and may create nothing billable, even at no cost; so a server
 * start can call this with 0 to refuse powering on while the account is out of funds.
 */
export async function requireFunds(
  ctx: Platform,
  db: Queryable,
  accountId: number,
  costMicros: number,
  check: FundsCheck = {},
): Promise<void> {
  // The floor settles nearly every check in one cheap read; only when it does not (a balance
  // close to the cost, or hours paid up front) are the account's open items metered one by one.
  const floor = check.balanceFloorMicros ?? (await accountBalanceFloor(ctx, db, accountId));
  if (covers(floor, costMicros)) return;
  const { balanceMicros } = await accountFinance(ctx, db, accountId);
  if (!covers(balanceMicros, costMicros)) {
    throw new PaymentRequired(
      `not enough funds to ${check.action ?? 'create the resource'}: it needs ${formatMoney(costMicros, 6)} USD up front and a balance above zero; the balance is ${formatMoney(balanceMicros, 2)} USD`,
    );
  }
}

/**
 * The funds rule for powering a server on: true while the balance is above zero. Paths that may
 * not refuse (rebuild, reinstall, restore are valid on any server) leave a stopped server
 * stopped instead of starting it when this is false.
 */
export async function mayPowerOn(ctx: Platform, db: Queryable, accountId: number): Promise<boolean> {
  if (covers(await accountBalanceFloor(ctx, db, accountId), 0)) return true;
  return covers((await accountFinance(ctx, db, accountId)).balanceMicros, 0);
}

function covers(balanceMicros: number, costMicros: number): boolean {
  return balanceMicros > 0 && balanceMicros >= costMicros;
}
