// The out-of-funds mark, lifted: a credit that brings an account's balance above zero lifts it at
// once (recordTransaction, a completed payment). The mark is set, and the account's running
// servers powered off, by the out-of-funds sweep (src/servers/out-of-funds.sweep.ts): billing is
// the floor servers stand on, so it decides on money and never drives a machine itself.

import type { Tx } from '../db/database.ts';
import { accountFunds } from '../events/resource-events.ts';
import type { Platform } from '../platform/context.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { accountFinance } from './ledger.ts';
import { billingRepository } from './billing.repository.ts';

/**
 * Lifts the out-of-funds mark when the balance is above zero. Call inside a transaction; it
 * takes the account lock first, so it cannot miss a mark that a concurrent sweep is writing.
 */
export async function liftIfFunded(ctx: Platform, trx: Tx, accountId: number): Promise<boolean> {
  await lockAccount(ctx, trx, accountId);
  if (!(await billingRepository.isMarkedOutOfFunds(trx, accountId))) return false;
  const { balanceMicros } = await accountFinance(ctx, trx, accountId);
  if (balanceMicros <= 0) return false;
  await billingRepository.unmarkOutOfFunds(trx, accountId);
  await accountFunds(ctx, trx, accountId, false);
  return true;
}
