// The ledger's one question: how much money does an account have now, and how fast is it
// going? Balance = transactions (credits, minus commit charges) − metered charges of invoice items.
//
// It is read on every account/info, so it never reads an account's history: the transactions and
// the final charges of closed items are a running total on the account row (settled.ts), and
// only the items still open are metered here. Its cost follows the resources an account has now.

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { chargeOfItem, hourlyBurn, type MeteredItem } from './metering.ts';
import { billingRepository } from './billing.repository.ts';

export interface AccountFinance {
  balanceMicros: number;
  /** What the account pays an hour now: amount_hr of each open item whose current hour is not prepaid. */
  burnMicrosPerHour: number;
  /** Seconds until the balance reaches zero at that burn (0 when it already has); null when nothing is billed. */
  secondsDue: number | null;
}

export async function accountFinance(ctx: Platform, db: Queryable, accountId: number): Promise<AccountFinance> {
  const { settled, items } = await billingRepository.ledger(db, accountId);
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

/** The account's balance floor (billing.repository.ts balanceFloor) now, in micro-dollars. */
export function accountBalanceFloor(ctx: Platform, db: Queryable, accountId: number): Promise<number> {
  return billingRepository.balanceFloor(db, accountId, ctx.clock.now());
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
  const { settled, items } = await billingRepository.ledger(db, accountId);
  return zeroBalanceAt(settled, items, from, to);
}

/** outOfFundsAt for a ledger already read: the settled total and the open items. */
export function zeroBalanceAt(settled: number, items: MeteredItem[], from: number, to: number): number | null {
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
