// Sending mail: a mail is a row in the outbox (readable through the operator API), written in
// the caller's transaction; SMTP delivery happens after, with retries, and never fails the caller.

import { sql } from 'kysely';
import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { isoSeconds } from '../platform/clock.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
}

const maxAttempts = 10;

/** Queues a mail in the outbox. Delivery is attempted by `deliverPendingMail`. */
export async function queueMail(ctx: Platform, db: Queryable, mail: Mail): Promise<void> {
  const now = ctx.clock.now();
  await db.insertInto('mail_outbox').values({
    to_address: mail.to.toLowerCase(),
    subject: mail.subject,
    text: mail.text,
    created_at: now,
    attempts: 0,
    next_attempt_at: ctx.mailTransport ? now : null,
  }).execute();
}

export async function listOutbox(ctx: Platform, to: string | undefined) {
  let query = ctx.db.selectFrom('mail_outbox').select(['id', 'to_address', 'subject', 'text', 'created_at', 'delivered_at']).orderBy('id', 'desc').limit(1000);
  if (to) query = query.where('to_address', '=', to.toLowerCase());
  const rows = await query.execute();
  return rows.map((row) => ({ id: row.id, to: row.to_address, subject: row.subject, text: row.text, created: isoSeconds(row.created_at), delivered: row.delivered_at !== null }));
}

/**
 * Delivers due mail over SMTP. Safe on several instances at once: on PostgreSQL each batch
 * is claimed with FOR UPDATE SKIP LOCKED and pushed to its next attempt before sending.
 */
export async function deliverPendingMail(ctx: Platform, batch = 20): Promise<number> {
  const transport = ctx.mailTransport;
  if (!transport) return 0;
  const now = ctx.clock.now();
  const claimed = await ctx.db.transaction().execute(async (trx) => {
    let query = trx.selectFrom('mail_outbox').selectAll().where('delivered_at', 'is', null).where('next_attempt_at', '<=', now).orderBy('next_attempt_at').limit(batch);
    if (ctx.dialect === 'postgres') query = query.modifyEnd(sql`for update skip locked`);
    const rows = await query.execute();
    for (const row of rows) {
      // Claim: push the next attempt out (exponential back-off) so no other sweeper takes it meanwhile.
      const backoff = Math.min(3600_000, 30_000 * 2 ** row.attempts);
      await trx.updateTable('mail_outbox').set({ attempts: row.attempts + 1, next_attempt_at: row.attempts + 1 >= maxAttempts ? null : now + backoff }).where('id', '=', row.id).execute();
    }
    return rows;
  });
  let delivered = 0;
  for (const row of claimed) {
    try {
      await transport.deliver({ from: ctx.config.mailFrom, to: row.to_address, subject: row.subject, text: row.text });
      await ctx.db.updateTable('mail_outbox').set({ delivered_at: ctx.clock.now(), next_attempt_at: null, last_error: null }).where('id', '=', row.id).execute();
      delivered++;
    } catch (error) {
      ctx.log.warn({ mailId: row.id, attempt: row.attempts + 1, err: (error as Error).message }, 'mail delivery failed; will retry');
      await ctx.db.updateTable('mail_outbox').set({ last_error: (error as Error).message.slice(0, 500) }).where('id', '=', row.id).execute();
    }
  }
  return delivered;
}
