// Queries on the mail outbox: a mail queued in the caller's transaction, the operator's
// listing, and the delivery run's claim (FOR UPDATE SKIP LOCKED on PostgreSQL), attachment and
// outcome.

import { type Insertable, sql } from 'kysely';
import type { DialectName, Queryable, Tx } from '../db/database.ts';
import type { MailRow, MailTable } from './mail.table.ts';

/** A mail as queueMail decides it; mailRow makes its row. */
export interface NewMail {
  /** The address, lower case. */
  to: string;
  subject: string;
  /** The body as stored (sealed by mail.service.ts). */
  storedText: string;
  /** An invoice document sent as the attachment, or null. */
  documentId: number | null;
  queuedAt: number;
  /** When delivery is first tried; null: never (no SMTP transport). */
  firstAttemptAt: number | null;
}

/** A mail of the outbox as delivery reads it. */
export interface StoredMail {
  id: number;
  to: string;
  subject: string;
  /** The body as stored: sealed, or plain text in rows from before sealing. */
  storedText: string;
  documentId: number | null;
  /** Delivery attempts so far. */
  attempts: number;
}

/** A mail as the operator's outbox listing reads it. */
export interface OutboxMail extends Omit<StoredMail, 'documentId'> {
  createdAt: number;
  deliveredAt: number | null;
  lastError: string | null;
  /** The attached invoice document's number and period; null when none is (or it is gone). */
  document: { number: number; period: string } | null;
}

/** The one mapping of a new mail to its row: not delivered, not tried yet. */
function mailRow(mail: NewMail): Insertable<MailTable> {
  return {
    to_address: mail.to,
    subject: mail.subject,
    text: mail.storedText,
    created_at: mail.queuedAt,
    attempts: 0,
    next_attempt_at: mail.firstAttemptAt,
    document_id: mail.documentId,
  };
}

/** The one mapping of a stored mail to what delivery reads. */
function rowToStoredMail(row: MailRow): StoredMail {
  return {
    id: row.id,
    to: row.to_address,
    subject: row.subject,
    storedText: row.text,
    documentId: row.document_id,
    attempts: row.attempts,
  };
}

export const mailRepository = {
  async insert(db: Queryable, mail: NewMail): Promise<void> {
    await db.insertInto('mail_outbox').values(mailRow(mail)).execute();
  },

  /** Newest first, with the number and period of an attached invoice document. */
  async outbox(db: Queryable, filter: { to?: string; limit: number }): Promise<OutboxMail[]> {
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
    return (await query.execute()).map((row) => ({
      id: row.id,
      to: row.to_address,
      subject: row.subject,
      storedText: row.text,
      createdAt: row.created_at,
      deliveredAt: row.delivered_at,
      attempts: row.attempts,
      lastError: row.last_error,
      document: row.number !== null && row.period !== null ? { number: row.number, period: row.period } : null,
    }));
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
  async due(dialect: DialectName, trx: Tx, now: number, limit: number): Promise<StoredMail[]> {
    let query = trx
      .selectFrom('mail_outbox')
      .selectAll()
      .where('delivered_at', 'is', null)
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .limit(limit);
    if (dialect === 'postgres') query = query.modifyEnd(sql`for update skip locked`);
    return (await query.execute()).map(rowToStoredMail);
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
