// What processors report about payments, applied exactly once: a paid checkout completes its
// payment and credits it, a failed one fails it, refunds and disputes are transactions of their own.
//
// Lock order: the payment is found without a lock, then its account row is locked (lockAccount),
// then the processor's event is claimed and the payment changed, all in one transaction: so
// concurrent deliveries of one event wait on the account and the later ones find the event claimed.

import type { Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import type { TransactionRow } from '../billing/billing.table.ts';
import { taxOf } from '../billing/billing-settings.ts';
import { liftIfFunded } from '../billing/out-of-funds.ts';
import { addSettled } from '../billing/settled.ts';
import { transaction } from '../db/transaction.ts';
import { paymentRepository, type PaymentRef } from './payment.repository.ts';

/** A processor's event, remembered by id so that a second delivery changes nothing. */
export interface ProcessorEvent {
  processor: string;
  id: string;
  type: string;
}

/** Marks a pending payment completed and credits its amount; false when it was not pending (already done). */
export async function settle(
  ctx: Platform,
  trx: Tx,
  row: TransactionRow,
  changes: { fee_micros?: number; payment_ref?: string | null },
) {
  const now = ctx.clock.now();
  const changed = await paymentRepository.changePending(trx, row.id, {
    ...changes,
    pstatus: 'completed',
    settled_at: now,
    updated_at: now,
  });
  if (!changed) return false;
  await addSettled(trx, row.account_id, row.amount_micros);
  await liftIfFunded(ctx, trx, row.account_id);
  return true;
}

/** What became of a processor's event. */
export type EventOutcome = 'applied' | 'duplicate' | 'unknown payment' | 'no change';

/**
 * Runs `change` on the payment `where` names: its account locked first, then the event claimed
 * (a second delivery of it is a 'duplicate' and changes nothing), in one transaction.
 */
async function onPayment(
  ctx: Platform,
  where: PaymentRef,
  event: ProcessorEvent,
  change: (trx: Tx, row: TransactionRow) => Promise<boolean>,
): Promise<EventOutcome> {
  const found = await paymentRepository.findPayment(ctx.db, where);
  return transaction(ctx, async (trx) => {
    if (found) await lockAccount(ctx, trx, found.account_id);
    if (!(await paymentRepository.claimEvent(trx, event, ctx.clock.now()))) return 'duplicate';
    if (!found) return 'unknown payment';
    const row = await paymentRepository.byId(trx, found.id);
    if (!row) throw new Error(`payment ${found.id} vanished`);
    return (await change(trx, row)) ? 'applied' : 'no change';
  });
}

/** The processor says the checkout was paid: complete the payment and credit it, exactly once. */
export function completePayment(
  ctx: Platform,
  ref: { ptype: string; processorRef: string },
  details: { paymentRef?: string | null; feeMicros?: number },
  event: ProcessorEvent,
): Promise<EventOutcome> {
  return onPayment(ctx, ref, event, (trx, row) =>
    settle(ctx, trx, row, {
      ...(details.paymentRef ? { payment_ref: details.paymentRef } : {}),
      fee_micros: details.feeMicros ?? 0,
    }),
  );
}

/**
 * The processor says the checkout failed, or expired unpaid (`expired`, so the customer is told
 * which): the pending payment ends; nothing is credited.
 */
export function failPayment(
  ctx: Platform,
  ref: { ptype: string; processorRef: string },
  event: ProcessorEvent,
  pstatus: 'failed' | 'expired' = 'failed',
) {
  return onPayment(ctx, ref, event, (trx, row) =>
    paymentRepository.changePending(trx, row.id, { pstatus, updated_at: ctx.clock.now() }),
  );
}

/** The net share of a gross amount the processor names (refunded, disputed) of a payment, to the cent. */
function netShare(row: TransactionRow, grossMicros: number): number {
  const gross = row.amount_micros + taxOf(row.amount_micros, row.taxrate_bp);
  if (gross <= 0) return 0;
  const exact = (row.amount_micros * grossMicros) / gross;
  return Math.min(row.amount_micros, Math.round(exact / 10_000) * 10_000);
}

async function adjustment(
  ctx: Platform,
  trx: Tx,
  row: TransactionRow,
  entry: { amountMicros: number; pstatus: string; note: string },
): Promise<void> {
  const now = ctx.clock.now();
  await paymentRepository.insert(trx, {
    account_id: row.account_id,
    ptype: row.ptype,
    pstatus: entry.pstatus,
    amount_micros: entry.amountMicros,
    fee_micros: 0,
    taxrate_bp: row.taxrate_bp,
    note: entry.note,
    payment_ref: row.payment_ref,
    parent_id: row.id,
    settled_at: now,
    created_at: now,
    updated_at: now,
  });
  await addSettled(trx, row.account_id, entry.amountMicros);
  if (entry.amountMicros > 0) await liftIfFunded(ctx, trx, row.account_id);
}

/**
 * The processor refunded `refundedGrossMicros` of a payment in all so far (a processor reports the
 * running total): a refund transaction debits what is new, and a payment refunded in full shows
 * `refunded`.
 */
export function recordRefund(
  ctx: Platform,
  ref: { ptype: string; paymentRef: string },
  refundedGrossMicros: number,
  event: ProcessorEvent,
): Promise<EventOutcome> {
  return onPayment(ctx, ref, event, async (trx, row) => {
    if (row.settled_at === null) return false;
    const refundedNet = netShare(row, refundedGrossMicros);
    const already = -(await paymentRepository.childrenTotal(trx, row.id, 'refunded', 'all'));
    const debit = refundedNet - already;
    if (debit <= 0) return false;
    await adjustment(ctx, trx, row, { amountMicros: -debit, pstatus: 'refunded', note: `refund of payment ${row.id}` });
    if (refundedNet >= row.amount_micros) await paymentRepository.setStatus(trx, row.id, 'refunded', ctx.clock.now());
    return true;
  });
}

/** A dispute (chargeback) opened on a payment: its amount leaves the balance at once. */
export function recordDispute(
  ctx: Platform,
  ref: { ptype: string; paymentRef: string },
  disputedGrossMicros: number,
  event: ProcessorEvent,
): Promise<EventOutcome> {
  return onPayment(ctx, ref, event, async (trx, row) => {
    if (row.settled_at === null) return false;
    const debit = netShare(row, disputedGrossMicros);
    if (debit <= 0) return false;
    await adjustment(ctx, trx, row, {
      amountMicros: -debit,
      pstatus: 'completed',
      note: `dispute on payment ${row.id}`,
    });
    return true;
  });
}

/** A dispute closed in the seller's favour: what it took comes back. */
export function recordDisputeWon(
  ctx: Platform,
  ref: { ptype: string; paymentRef: string },
  event: ProcessorEvent,
): Promise<EventOutcome> {
  return onPayment(ctx, ref, event, async (trx, row) => {
    const disputed = -(await paymentRepository.childrenTotal(trx, row.id, 'completed', 'debits'));
    const reinstated = await paymentRepository.childrenTotal(trx, row.id, 'completed', 'credits');
    const credit = disputed - reinstated;
    if (credit <= 0) return false;
    await adjustment(ctx, trx, row, {
      amountMicros: credit,
      pstatus: 'completed',
      note: `dispute won on payment ${row.id}`,
    });
    return true;
  });
}
