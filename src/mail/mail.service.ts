// Sending mail: a mail is a row in the outbox (readable through the operator API), written in
// the caller's transaction; SMTP delivery happens after, with retries, and never fails the caller.

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { mailRepository } from './mail.repository.ts';
import { transaction } from '../db/transaction.ts';
import { documentFilename } from '../documents/document-name.ts';
import { afterCommitWork } from '../platform/after-commit.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** An invoice document sent as the attachment (read from its table when the mail is delivered). */
  documentId?: number;
}

const maxAttempts = 10;

/**
 * Mail bodies carry secrets (activation uuids, temporary passwords): the outbox keeps them sealed
 * with the server key, so a database dump opens no account. Rows from before are plain text.
 */
const sealedPrefix = 'sealed:';
function sealBody(ctx: Platform, text: string): string {
  return sealedPrefix + ctx.secrets.encrypt(text);
}
function openBody(ctx: Platform, stored: string): string {
  if (!stored.startsWith(sealedPrefix)) return stored;
  try {
    return ctx.secrets.decrypt(stored.slice(sealedPrefix.length));
  } catch {
    return '(sealed with another server key)';
  }
}

/** Queues a mail in the outbox. Delivery is attempted by `deliverPendingMail`. */
export async function queueMail(ctx: Platform, db: Queryable, mail: Mail): Promise<void> {
  const now = ctx.clock.now();
  await mailRepository.insert(db, {
    to: mail.to.toLowerCase(),
    subject: mail.subject,
    storedText: sealBody(ctx, mail.text),
    documentId: mail.documentId ?? null,
    queuedAt: now,
    firstAttemptAt: ctx.mailTransport ? now : null,
  });
}

/** A mail in the outbox (the operator API shapes it for the wire). */
export interface OutboxMessage {
  id: number;
  to: string;
  subject: string;
  text: string;
  /** Clock ms. */
  createdAt: number;
  /** Delivered over SMTP (always false without SMTP_URL). */
  delivered: boolean;
  /** SMTP delivery attempts so far, and the last failure, for an operator chasing a lost mail. */
  attempts: number;
  lastError: string | null;
  /** The file name of an attached invoice document, or null. */
  attachment: string | null;
}

/** The outbox, newest first (at most 1000), optionally only the mail to one address. */
export async function listOutbox(ctx: Platform, to: string | undefined): Promise<OutboxMessage[]> {
  const rows = await mailRepository.outbox(ctx.db, { to: to ? to.trim().toLowerCase() : undefined, limit: 1000 });
  return rows.map((mail) => ({
    id: mail.id,
    to: mail.to,
    subject: mail.subject,
    text: openBody(ctx, mail.storedText),
    createdAt: mail.createdAt,
    delivered: mail.deliveredAt !== null,
    attempts: mail.attempts,
    lastError: mail.lastError,
    attachment: mail.document && documentFilename(Number(mail.document.number), mail.document.period),
  }));
}

/** The invoice document a mail carries, as its attachment (none when the document is gone). */
async function attachedDocument(ctx: Platform, documentId: number) {
  const document = await mailRepository.attachedDocument(ctx.db, documentId);
  if (!document) return [];
  return [
    {
      filename: documentFilename(Number(document.number), document.period),
      content: Buffer.from(document.pdf, 'base64'),
      contentType: 'application/pdf',
    },
  ];
}

const delivery = afterCommitWork('mail delivery', (ctx) => deliverPendingMail(ctx));

/**
 * Starts delivering due mail now, without waiting: called after a transaction that queued
 * mail commits, so a mail leaves at once rather than at the next sweep. A failure is left
 * to the retries of the mail sweep; it never reaches the caller.
 */
export function kickMailDelivery(ctx: Platform): void {
  if (ctx.mailTransport) delivery.kick(ctx);
}

/** Waits for the deliveries kickMailDelivery started (at shutdown, before storage closes). */
export function settleMailDeliveries(ctx: Platform): Promise<void> {
  return delivery.settle(ctx);
}

/**
 * Delivers due mail over SMTP. Safe on several instances at once: on PostgreSQL each batch
 * is claimed with FOR UPDATE SKIP LOCKED and pushed to its next attempt before sending.
 */
export async function deliverPendingMail(ctx: Platform, batch = 20): Promise<number> {
  const transport = ctx.mailTransport;
  if (!transport) return 0;
  const now = ctx.clock.now();
  const claimed = await transaction(ctx, async (trx) => {
    const rows = await mailRepository.due(ctx.dialect, trx, now, batch);
    for (const row of rows) {
      // Claim: push the next attempt out (exponential back-off) so no other sweeper takes it meanwhile.
      const backoff = Math.min(3600_000, 30_000 * 2 ** row.attempts);
      const attempts = row.attempts + 1;
      await mailRepository.attempted(trx, row.id, attempts, attempts >= maxAttempts ? null : now + backoff);
    }
    return rows;
  });
  let delivered = 0;
  for (const row of claimed) {
    try {
      await transport.deliver({
        from: ctx.config.mailFrom,
        to: row.to,
        subject: row.subject,
        text: openBody(ctx, row.storedText),
        ...(row.documentId !== null ? { attachments: await attachedDocument(ctx, row.documentId) } : {}),
      });
      await mailRepository.delivered(ctx.db, row.id, ctx.clock.now());
      delivered++;
    } catch (error) {
      const attempt = row.attempts + 1;
      if (attempt >= maxAttempts)
        ctx.log.error(
          { mailId: row.id, attempt, err: (error as Error).message },
          'mail delivery failed for the last time; the mail stays in the outbox',
        );
      else ctx.log.warn({ mailId: row.id, attempt, err: (error as Error).message }, 'mail delivery failed; will retry');
      await mailRepository.failed(ctx.db, row.id, (error as Error).message.slice(0, 500));
    }
  }
  return delivered;
}
