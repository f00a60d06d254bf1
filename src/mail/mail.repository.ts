// Queries on the mail outbox: a mail queued in the caller's transaction, the operator's
// listing, and the delivery run's claim (FOR UPDATE SKIP LOCKED on PostgreSQL), attachment and
// outcome.

import { type Insertable, sql } from 'kysely';
import type { DialectName, Queryable, Tx } from '../db/database.ts';
import type { MailRow, MailTable } from './mail.table.ts';

export const mailRepository = {
  async insert(db: Queryable, row: Insertable<MailTable>): Promise<void> {
    await db.insertInto('mail_outbox').values(row).execute();
  },

  /** Newest first, with the number and period of an attached invoice document. */
  outbox(db: Queryable, filter: { to?: string; limit: number }) {
    let query = db
      .selectFrom('mail_outbox')
      .leftJoin('invoice_documents', 'invoice_documents.id', 'mail_outbox.document_id')
      .select([
        'mail_outbox.id',
        'to_address',
        'subject',
        'text',
        'mail_outbox.created_at',
        'delivered_at',
        'attempts',
        'last_error',
        'invoice_documents.number',
        'invoice_documents.period',
      ])
      .orderBy('mail_outbox.id', 'desc')
      .limit(filter.limit);
    if (filter.to !== undefined) query = query.where('to_address', '=', filter.to);
    return query.execute();
  },

  /** An invoice document as an attachment: its number, period and PDF (base64). */
  attachedDocument(db: Queryable, documentId: number) {
    return db
      .selectFrom('invoice_documents')
      .select(['number', 'period', 'pdf'])
      .where('id', '=', documentId)
      .executeTakeFirst();
  },

  /** Up to `limit` undelivered mails due by `now`; PostgreSQL locks them and skips locked ones. */
  due(dialect: DialectName, trx: Tx, now: number, limit: number): Promise<MailRow[]> {
    let query = trx
      .selectFrom('mail_outbox')
      .selectAll()
      .where('delivered_at', 'is', null)
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .limit(limit);
    if (dialect === 'postgres') query = query.modifyEnd(sql`for update skip locked`);
    return query.execute();
  },

  /** Counts an attempt and sets the next (null: no more). */
  async attempted(trx: Tx, id: number, attempts: number, nextAttemptAt: number | null): Promise<void> {
    await trx
      .updateTable('mail_outbox')
      .set({ attempts, next_attempt_at: nextAttemptAt })
      .where('id', '=', id)
      .execute();
  },

  async delivered(db: Queryable, id: number, at: number): Promise<void> {
    await db
      .updateTable('mail_outbox')
      .set({ delivered_at: at, next_attempt_at: null, last_error: null })
      .where('id', '=', id)
      .execute();
  },

  async failed(db: Queryable, id: number, error: string): Promise<void> {
    await db.updateTable('mail_outbox').set({ last_error: error }).where('id', '=', id).execute();
  },
};
