// Transactions: money moving into an account (operator credits, payments) or out of it up
// front (commit charges). Amounts are integer micro-dollars and times clock ms; each API shapes
// them (v1.3 and the operator API: dollars, ISO seconds).

import type { Queryable, Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import type { TransactionRow } from './billing.table.ts';
import { liftIfFunded } from './out-of-funds.ts';
import { readSnapshot } from './read-snapshot.ts';
import { addSettled } from './settled.ts';
import { billingRepository } from './billing.repository.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { transaction } from '../db/transaction.ts';

/** A transaction as the domain holds it; `rowToTransaction` reads it from its row. */
export interface Transaction {
  id: number;
  accountId: number;
  /** Where the money came from: stripe, simulated, bank, operator; commit for a charge paid up front. */
  ptype: string;
  pstatus: string;
  /** What the balance gains (negative: a refund, a dispute, a commit charge), VAT excluded. */
  amountMicros: number;
  feeMicros: number;
  /** VAT in basis points, charged on top of the amount. */
  taxrateBp: number;
  note: string | null;
  /** A bank transfer's reference (put it on the transfer); null for other payments. */
  reference: string | null;
  createdAt: number;
  updatedAt: number;
}

export function rowToTransaction(row: TransactionRow): Transaction {
  return {
    id: row.id,
    accountId: row.account_id,
    ptype: row.ptype,
    pstatus: row.pstatus,
    amountMicros: row.amount_micros,
    feeMicros: row.fee_micros,
    taxrateBp: row.taxrate_bp,
    note: row.note,
    reference: row.reference,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Records money moving in (positive) or out (negative). A credit that brings an out-of-funds
 * account above zero lifts its mark in the same transaction. Runs in the caller's transaction
 * when given one (a commit charge at server create), else in its own.
 */
export async function recordTransaction(
  ctx: Platform,
  db: Queryable,
  entry: { accountId: number; amountMicros: number; ptype: string; note?: string | null },
): Promise<Transaction> {
  const write = async (trx: Tx): Promise<Transaction> => {
    const now = ctx.clock.now();
    // Account row first (the lock order), then the transaction it now counts.
    await lockAccount(ctx, trx, entry.accountId);
    await addSettled(trx, entry.accountId, entry.amountMicros);
    const row = await billingRepository.insertSettledTransaction(trx, {
      accountId: entry.accountId,
      ptype: entry.ptype,
      amountMicros: entry.amountMicros,
      note: entry.note ?? null,
      settledAt: now,
    });
    if (entry.amountMicros > 0) await liftIfFunded(ctx, trx, entry.accountId);
    return rowToTransaction(row);
  };
  // isTransaction tells a Transaction from the Kysely instance that Queryable also admits.
  return db.isTransaction ? write(db as Tx) : transaction(ctx, write);
}

export async function listTransactions(
  ctx: Platform,
  accountId: number,
): Promise<{ transactions: Transaction[]; meta: { total: number } }> {
  const [rows, total] = await readSnapshot(ctx, (trx) =>
    Promise.all([
      billingRepository.transactionsPage(trx, accountId, 100),
      billingRepository.transactionCount(trx, accountId),
    ]),
  );
  return { transactions: rows.map(rowToTransaction), meta: { total } };
}
