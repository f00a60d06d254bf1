// The settled part of an account's balance, kept as a running total on the account row
// (accounts.settled_micros, migration 0007): every transaction adds its amount and every closed
// invoice item subtracts its final charge, in the same database transaction. The ledger adds the
// items still open, so a balance never sums the account's history.
//
// Lock order: the account row first. Each caller holds the account lock (lockAccount) before it
// writes the transaction or closes the item, and this update is then the account row's only write.

import type { Tx } from '../db/database.ts';
import { billingRepository } from './billing.repository.ts';

/** Adds `deltaMicros` (negative for a charge) to the account's settled total. */
export async function addSettled(trx: Tx, accountId: number, deltaMicros: number): Promise<void> {
  if (deltaMicros === 0) return;
  await billingRepository.addSettled(trx, accountId, deltaMicros);
}
