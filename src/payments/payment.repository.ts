// Queries on payments: the transactions a processor or a bank transfer brings in (pending,
// completed once, failed), their refunds and disputes (child transactions), and the processors'
// events claimed once. Writes that credit are made by a caller holding the account lock.

import type { Insertable, Updateable } from 'kysely';
import type { Queryable, Tx } from '../db/database.ts';
import type { TransactionRow, TransactionTable } from '../billing/billing.table.ts';
import { insertTransactionRow } from '../billing/billing.repository.ts';

/** Which payment a processor's event is about: by the checkout's ref, or by the payment's ref. */
export type PaymentRef = { ptype: string; processorRef: string } | { ptype: string; paymentRef: string };

/** A payment asked for (a card checkout, a bank transfer): pending, nothing credited yet. */
export interface NewPayment {
  accountId: number;
  /** Where the money comes from: the card processor's name, or bank. */
  ptype: string;
  /** What the balance gains once it completes, VAT excluded. */
  amountMicros: number;
  taxrateBp: number;
  /** A bank transfer's reference (put on the transfer); a card payment has none. */
  reference?: string;
  createdAt: number;
}

/** The one mapping of a new payment to its row. */
function newPaymentRow(payment: NewPayment): Insertable<TransactionTable> {
  return {
    account_id: payment.accountId,
    ptype: payment.ptype,
    pstatus: 'pending',
    amount_micros: payment.amountMicros,
    fee_micros: 0,
    taxrate_bp: payment.taxrateBp,
    note: null,
    ...(payment.reference === undefined ? {} : { reference: payment.reference }),
    created_at: payment.createdAt,
    updated_at: payment.createdAt,
  };
}

/** A refund, a dispute or a dispute won: settled at once, a child of the payment it adjusts. */
export interface NewAdjustment {
  /** The payment adjusted: the adjustment is its account's, of its type, at its VAT rate. */
  payment: { id: number; accountId: number; ptype: string; taxrateBp: number; paymentRef: string | null };
  pstatus: string;
  /** What the balance gains (negative for a refund or a dispute). */
  amountMicros: number;
  note: string;
  settledAt: number;
}

/** The one mapping of an adjustment to its row. */
function adjustmentRow(adjustment: NewAdjustment): Insertable<TransactionTable> {
  return {
    account_id: adjustment.payment.accountId,
    ptype: adjustment.payment.ptype,
    pstatus: adjustment.pstatus,
    amount_micros: adjustment.amountMicros,
    fee_micros: 0,
    taxrate_bp: adjustment.payment.taxrateBp,
    note: adjustment.note,
    payment_ref: adjustment.payment.paymentRef,
    parent_id: adjustment.payment.id,
    settled_at: adjustment.settledAt,
    created_at: adjustment.settledAt,
    updated_at: adjustment.settledAt,
  };
}

/** What completing a payment records beside its status: the processor's fee and payment reference, when named. */
export interface Completion {
  feeMicros?: number;
  paymentRef?: string | null;
}

/** How a pending payment ends: completed (credited) with what the processor named, or failed or expired. */
export type PendingEnd = { pstatus: 'completed'; completion: Completion } | { pstatus: 'failed' | 'expired' };

/** The one mapping of a pending payment's end to the columns it changes. */
function pendingEndChanges(end: PendingEnd, at: number): Updateable<TransactionTable> {
  if (end.pstatus !== 'completed') return { pstatus: end.pstatus, updated_at: at };
  const { completion } = end;
  return {
    ...(completion.paymentRef === undefined ? {} : { payment_ref: completion.paymentRef }),
    ...(completion.feeMicros === undefined ? {} : { fee_micros: completion.feeMicros }),
    pstatus: 'completed',
    settled_at: at,
    updated_at: at,
  };
}

export const paymentRepository = {
  /** Inserts a pending payment, counted on the account row in `trx`. */
  insertPayment(trx: Tx, payment: NewPayment): Promise<TransactionRow> {
    return insertTransactionRow(trx, newPaymentRow(payment));
  },

  /** Inserts a refund or dispute of a payment, counted on the account row in `trx`. */
  insertAdjustment(trx: Tx, adjustment: NewAdjustment): Promise<TransactionRow> {
    return insertTransactionRow(trx, adjustmentRow(adjustment));
  },

  byId(db: Queryable, id: number): Promise<TransactionRow | undefined> {
    return db.selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** The processor's checkout reference of a payment, once the processor has started it. */
  setProcessorRef(db: Queryable, id: number, processorRef: string): Promise<TransactionRow> {
    return db
      .updateTable('transactions')
      .set({ processor_ref: processorRef })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  /** A pending payment ended (completed with its details, failed, expired) at `at`; false when it was not pending. */
  async endPending(db: Queryable, id: number, end: PendingEnd, at: number): Promise<boolean> {
    const result = await db
      .updateTable('transactions')
      .set(pendingEndChanges(end, at))
      .where('id', '=', id)
      .where('pstatus', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  setStatus(db: Queryable, id: number, pstatus: string, now: number): Promise<unknown> {
    return db.updateTable('transactions').set({ pstatus, updated_at: now }).where('id', '=', id).execute();
  },

  /** Pending bank transfers of every account, newest first: `limit` of them with ids below `before`. */
  pendingTransfers(db: Queryable, page: { before?: number; limit: number }): Promise<TransactionRow[]> {
    let query = db.selectFrom('transactions').selectAll().where('pstatus', '=', 'pending').where('ptype', '=', 'bank');
    if (page.before !== undefined) query = query.where('id', '<', page.before);
    return query.orderBy('id', 'desc').limit(page.limit).execute();
  },

  /** How many bank transfers of the account are pending. */
  async pendingTransferCount(db: Queryable, accountId: number): Promise<number> {
    const row = await db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('pstatus', '=', 'pending')
      .where('ptype', '=', 'bank')
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  },

  /** Pending bank transfers asked for before `createdBefore` become expired (of one account, or all); how many. */
  async expireTransfers(db: Queryable, createdBefore: number, now: number, accountId?: number): Promise<number> {
    let query = db
      .updateTable('transactions')
      .set({ pstatus: 'expired', updated_at: now })
      .where('pstatus', '=', 'pending')
      .where('ptype', '=', 'bank')
      .where('created_at', '<', createdBefore);
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    return Number((await query.executeTakeFirst()).numUpdatedRows);
  },

  /** The references of the simulated processor's checkouts still pending that were opened before `before`. */
  async simulatedCheckoutsOpenedBefore(db: Queryable, before: number, limit: number): Promise<string[]> {
    const rows = await db
      .selectFrom('transactions')
      .select('processor_ref')
      .where('ptype', '=', 'simulated')
      .where('pstatus', '=', 'pending')
      .where('created_at', '<', before)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => row.processor_ref as string);
  },

  /** The simulated processor's checkout by its reference. */
  simulatedCheckout(db: Queryable, processorRef: string): Promise<TransactionRow | undefined> {
    return db
      .selectFrom('transactions')
      .selectAll()
      .where('ptype', '=', 'simulated')
      .where('processor_ref', '=', processorRef)
      .executeTakeFirst();
  },

  /** The payment an event names (not a refund or dispute of it), without a lock. */
  async findPayment(db: Queryable, where: PaymentRef): Promise<{ id: number; accountId: number } | undefined> {
    let query = db.selectFrom('transactions').select(['id', 'account_id']).where('ptype', '=', where.ptype);
    query =
      'processorRef' in where
        ? query.where('processor_ref', '=', where.processorRef)
        : query.where('payment_ref', '=', where.paymentRef).where('parent_id', 'is', null);
    const row = await query.orderBy('id').executeTakeFirst();
    return row && { id: row.id, accountId: row.account_id };
  },

  /** Claims a processor's event; false when it was claimed before (a second delivery). */
  async claimEvent(trx: Tx, event: { processor: string; id: string; type: string }, now: number): Promise<boolean> {
    const claimed = await trx
      .insertInto('payment_events')
      .values({ processor: event.processor, event_id: event.id, type: event.type, received_at: now })
      .onConflict((oc) => oc.columns(['processor', 'event_id']).doNothing())
      .returning('event_id')
      .executeTakeFirst();
    return claimed !== undefined;
  },

  /** The sum of a payment's refunds or disputes of one status: all, the debits or the credits. */
  async childrenTotal(trx: Tx, parentId: number, pstatus: string, sign: 'all' | 'debits' | 'credits'): Promise<number> {
    let query = trx
      .selectFrom('transactions')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_micros'), eb.val(0)).as('total'))
      .where('parent_id', '=', parentId)
      .where('pstatus', '=', pstatus);
    if (sign === 'debits') query = query.where('amount_micros', '<', 0);
    if (sign === 'credits') query = query.where('amount_micros', '>', 0);
    return Number((await query.executeTakeFirstOrThrow()).total);
  },
};
