// Queries on webhooks and their deliveries (the outbox event.repository.ts writes with each
// event): the operator's add, list and remove, and the delivery run's reads, lease and outcome.

import { type Insertable, sql } from 'kysely';
import type { Queryable } from '../db/database.ts';
import type { WebhookDeliveryRow, WebhookRow, WebhookTable } from './event.table.ts';

/** A new webhook of an account, its secret already sealed; webhookRow makes its row. */
export interface NewWebhook {
  accountId: number;
  url: string;
  secretSealed: string;
  createdAt: number;
}

/** The one mapping of a new webhook to its row. */
function webhookRow(hook: NewWebhook): Required<Omit<Insertable<WebhookTable>, 'id'>> {
  return {
    account_id: hook.accountId,
    url: hook.url,
    secret_sealed: hook.secretSealed,
    created_at: hook.createdAt,
  };
}

export const webhookRepository = {
  insert(db: Queryable, hook: NewWebhook): Promise<WebhookRow> {
    return db.insertInto('webhooks').values(webhookRow(hook)).returningAll().executeTakeFirstOrThrow();
  },

  find(db: Queryable, id: number): Promise<WebhookRow | undefined> {
    return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
  },

  ofAccount(db: Queryable, accountId: number): Promise<WebhookRow[]> {
    return db.selectFrom('webhooks').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  },

  /** Answers whether the account had that webhook. */
  async remove(db: Queryable, accountId: number, id: number): Promise<boolean> {
    const result = await db
      .deleteFrom('webhooks')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  },

  /** The newest `limit` deliveries of a webhook. */
  newestDeliveries(db: Queryable, webhookId: number, limit: number): Promise<WebhookDeliveryRow[]> {
    return db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  },

  async deliveryCounts(db: Queryable, webhookId: number): Promise<{ delivered: number; all: number }> {
    const counts = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => [eb.fn.count<number>('delivered_at').as('delivered'), eb.fn.countAll<number>().as('all')])
      .where('webhook_id', '=', webhookId)
      .executeTakeFirstOrThrow();
    return { delivered: Number(counts.delivered), all: Number(counts.all) };
  },

  /** Webhooks with an undelivered delivery due by `now` (at most `limit`). */
  async waiting(db: Queryable, now: number, limit: number): Promise<number[]> {
    const rows = await db
      .selectFrom('webhook_deliveries')
      .select('webhook_id')
      .distinct()
      .where('delivered_at', 'is', null)
      .where('next_attempt_at', '<=', now)
      .limit(limit)
      .execute();
    return rows.map((row) => row.webhook_id);
  },

  /** The webhook's first undelivered delivery (in event order). */
  head(db: Queryable, webhookId: number): Promise<WebhookDeliveryRow | undefined> {
    return db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .where('delivered_at', 'is', null)
      .orderBy('event_id')
      .limit(1)
      .executeTakeFirst();
  },

  /**
   * Leases the delivery until `until` (real-time ms) if it is still undelivered and no other
   * run holds a lease past `wall`; answers whether this run got it.
   */
  async lease(db: Queryable, id: number, wall: number, until: number): Promise<boolean> {
    const leased = await db
      .updateTable('webhook_deliveries')
      .set({ leased_until: until })
      .where('id', '=', id)
      // Still undelivered: another run may have posted it (and released its lease) since it was read.
      .where('delivered_at', 'is', null)
      .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<', wall)]))
      .executeTakeFirst();
    return Number(leased.numUpdatedRows) === 1;
  },

  async delivered(db: Queryable, id: number, at: number, attempts: number): Promise<void> {
    await db
      .updateTable('webhook_deliveries')
      .set({ delivered_at: at, attempts, leased_until: null, last_error: null })
      .where('id', '=', id)
      .execute();
  },

  async failed(db: Queryable, id: number, attempts: number, nextAttemptAt: number, error: string): Promise<void> {
    await db
      .updateTable('webhook_deliveries')
      .set({ attempts, next_attempt_at: nextAttemptAt, leased_until: null, last_error: error })
      .where('id', '=', id)
      .execute();
  },

  /** When the first waiting delivery of some webhook may be tried again (clock ms), if any. */
  async nextAttemptAt(db: Queryable): Promise<number | null> {
    const { rows } = await sql<{ next: number | null }>`
    select min(d.next_attempt_at) as next from webhook_deliveries d
    where d.delivered_at is null and d.event_id = (
      select min(e.event_id) from webhook_deliveries e where e.webhook_id = d.webhook_id and e.delivered_at is null)`.execute(
      db,
    );
    const next = rows[0]?.next;
    return next === null || next === undefined ? null : Number(next);
  },
};
