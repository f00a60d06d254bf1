// Queries on payments: the transactions a processor or a bank transfer brings in (pending,
// completed once, failed), their refunds and disputes (child transactions), and the processors'
// events claimed once. Writes that credit are made by a caller holding the account lock.

import type { Insertable } from 'kysely';
import type { Queryable, Tx } from '../db/database.ts';
import type { TransactionRow, TransactionTable } from '../billing/billing.table.ts';
import { insertTransactionRow } from '../billing/billing.repository.ts';

/** Which payment a processor's event is about: by the checkout's ref, or by the payment's ref. */
export type PaymentRef = { ptype: string; processorRef: string } | { ptype: string; paymentRef: string };

export const paymentRepository = {
  /** Inserts a payment (or its refund or dispute), counted on the account row in `trx`. */
  insert(trx: Tx, row: Insertable<TransactionTable>): Promise<TransactionRow> {
    return insertTransactionRow(trx, row);
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

  /** A pending payment's status changed (failed, completed with its details); false when it was not pending. */
  async changePending(
    db: Queryable,
    id: number,
    changes: Partial<Pick<TransactionRow, 'pstatus' | 'fee_micros' | 'payment_ref' | 'settled_at' | 'updated_at'>>,
  ): Promise<boolean> {
    const result = await db
      .updateTable('transactions')
      .set(changes)
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

  /** The simulated processor's checkouts still pending that were opened before `before`. */
  simulatedCheckoutsOpenedBefore(db: Queryable, before: number, limit: number): Promise<{ processor_ref: string }[]> {
    return db
      .selectFrom('transactions')
      .select('processor_ref')
      .where('ptype', '=', 'simulated')
      .where('pstatus', '=', 'pending')
      .where('created_at', '<', before)
      .orderBy('id')
      .limit(limit)
      .execute() as Promise<{ processor_ref: string }[]>;
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
  findPayment(db: Queryable, where: PaymentRef): Promise<{ id: number; account_id: number } | undefined> {
    let query = db.selectFrom('transactions').select(['id', 'account_id']).where('ptype', '=', where.ptype);
    query =
      'processorRef' in where
        ? query.where('processor_ref', '=', where.processorRef)
        : query.where('payment_ref', '=', where.paymentRef).where('parent_id', 'is', null);
    return query.orderBy('id').executeTakeFirst();
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
