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
import { rowToTransaction, type Transaction } from '../billing/transaction.service.ts';
import { liftIfFunded } from '../billing/out-of-funds.ts';
import { addSettled } from '../billing/settled.ts';
import { transaction } from '../db/transaction.ts';
import { type Completion, paymentRepository, type PaymentRef } from './payment.repository.ts';

/** A processor's event, remembered by id so that a second delivery changes nothing. */
export interface ProcessorEvent {
  processor: string;
  id: string;
  type: string;
}

/** A payment as processors' events change it: a transaction, with what refunds and disputes need. */
export interface Payment extends Transaction {
  /** When it was credited; null while pending, and when it failed. */
  settledAt: number | null;
  /** The processor's id its refunds and disputes name. */
  paymentRef: string | null;
}

export function rowToPayment(row: TransactionRow): Payment {
  return { ...rowToTransaction(row), settledAt: row.settled_at, paymentRef: row.payment_ref };
}

/** Marks a pending payment completed and credits its amount; false when it was not pending (already done). */
export async function settle(ctx: Platform, trx: Tx, payment: Payment, completion: Completion) {
  const end = { pstatus: 'completed', completion } as const;
  if (!(await paymentRepository.endPending(trx, payment.id, end, ctx.clock.now()))) return false;
  await addSettled(trx, payment.accountId, payment.amountMicros);
  await liftIfFunded(ctx, trx, payment.accountId);
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
  change: (trx: Tx, payment: Payment) => Promise<boolean>,
): Promise<EventOutcome> {
  const found = await paymentRepository.findPayment(ctx.db, where);
  return transaction(ctx, async (trx) => {
    if (found) await lockAccount(ctx, trx, found.accountId);
    if (!(await paymentRepository.claimEvent(trx, event, ctx.clock.now()))) return 'duplicate';
    if (!found) return 'unknown payment';
    const row = await paymentRepository.byId(trx, found.id);
    if (!row) throw new Error(`payment ${found.id} vanished`);
    return (await change(trx, rowToPayment(row))) ? 'applied' : 'no change';
  });
}

/** The processor says the checkout was paid: complete the payment and credit it, exactly once. */
export function completePayment(
  ctx: Platform,
  ref: { ptype: string; processorRef: string },
  details: { paymentRef?: string | null; feeMicros?: number },
  event: ProcessorEvent,
): Promise<EventOutcome> {
  return onPayment(ctx, ref, event, (trx, payment) =>
    settle(ctx, trx, payment, {
      ...(details.paymentRef ? { paymentRef: details.paymentRef } : {}),
      feeMicros: details.feeMicros ?? 0,
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
  return onPayment(ctx, ref, event, (trx, payment) =>
    paymentRepository.endPending(trx, payment.id, { pstatus }, ctx.clock.now()),
  );
}

/** The net share of a gross amount the processor names (refunded, disputed) of a payment, to the cent. */
function netShare(payment: Payment, grossMicros: number): number {
  const gross = payment.amountMicros + taxOf(payment.amountMicros, payment.taxrateBp);
  if (gross <= 0) return 0;
  const exact = (payment.amountMicros * grossMicros) / gross;
  return Math.min(payment.amountMicros, Math.round(exact / 10_000) * 10_000);
}

async function adjustment(
  ctx: Platform,
  trx: Tx,
  payment: Payment,
  entry: { amountMicros: number; pstatus: string; note: string },
): Promise<void> {
  await paymentRepository.insertAdjustment(trx, { payment, ...entry, settledAt: ctx.clock.now() });
  await addSettled(trx, payment.accountId, entry.amountMicros);
  if (entry.amountMicros > 0) await liftIfFunded(ctx, trx, payment.accountId);
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
  return onPayment(ctx, ref, event, async (trx, payment) => {
    if (payment.settledAt === null) return false;
    const refundedNet = netShare(payment, refundedGrossMicros);
    const already = -(await paymentRepository.childrenTotal(trx, payment.id, 'refunded', 'all'));
    const debit = refundedNet - already;
    if (debit <= 0) return false;
    const note = `refund of payment ${payment.id}`;
    await adjustment(ctx, trx, payment, { amountMicros: -debit, pstatus: 'refunded', note });
    if (refundedNet >= payment.amountMicros)
      await paymentRepository.setStatus(trx, payment.id, 'refunded', ctx.clock.now());
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
  return onPayment(ctx, ref, event, async (trx, payment) => {
    if (payment.settledAt === null) return false;
    const debit = netShare(payment, disputedGrossMicros);
    if (debit <= 0) return false;
    await adjustment(ctx, trx, payment, {
      amountMicros: -debit,
      pstatus: 'completed',
      note: `dispute on payment ${payment.id}`,
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
  return onPayment(ctx, ref, event, async (trx, payment) => {
    const disputed = -(await paymentRepository.childrenTotal(trx, payment.id, 'completed', 'debits'));
    const reinstated = await paymentRepository.childrenTotal(trx, payment.id, 'completed', 'credits');
    const credit = disputed - reinstated;
    if (credit <= 0) return false;
    await adjustment(ctx, trx, payment, {
      amountMicros: credit,
      pstatus: 'completed',
      note: `dispute won on payment ${payment.id}`,
    });
    return true;
  });
}
