// Webhooks: each account's events POSTed to the URLs the operator set for it, signed with
// HMAC-SHA256 of the webhook's secret. Deliveries are an outbox written with the event, in its
// transaction (event.service.ts), so none is lost; each webhook gets its events in order (a
// failed one holds the ones after it), retried with back-off until the receiver takes it. Any
// instance may deliver: a short lease keeps two from posting the same delivery at once.

import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import type { Platform } from '../platform/context.ts';
import { describeEvent } from './event-shape.ts';

const leaseMs = 30_000;
const timeoutMs = 5_000;
/** Seconds before the next try: 2, 4, 8 … at most 5 minutes. */
const backoffMs = (attempts: number) => Math.min(2 ** attempts, 300) * 1000;

/** The signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export function signature(secret: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

async function post(ctx: Platform, url: string, secret: string, deliveryId: number, body: string, type: string) {
  const timestamp = Math.floor(ctx.clock.now() / 1000);
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Nubis-Webhooks',
      'nubis-event': type,
      'nubis-delivery': String(deliveryId),
      'nubis-signature': signature(secret, timestamp, body),
    },
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  });
  await response.body?.cancel();
  if (response.status < 200 || response.status > 299) throw new Error(`answered ${response.status}`);
}

/** Delivers what is due, webhook by webhook, each in event order; answers how many were delivered. */
export async function deliverWebhooks(ctx: Platform, perWebhook = 100): Promise<number> {
  const now = ctx.clock.now();
  const waiting = await ctx.db
    .selectFrom('webhook_deliveries')
    .select('webhook_id')
    .distinct()
    .where('delivered_at', 'is', null)
    .where('next_attempt_at', '<=', now)
    .limit(200)
    .execute();
  let delivered = 0;
  for (const { webhook_id } of waiting) {
    const hook = await ctx.db.selectFrom('webhooks').selectAll().where('id', '=', webhook_id).executeTakeFirst();
    if (!hook) continue;
    const secret = ctx.secrets.decrypt(hook.secret_sealed);
    for (let sent = 0; sent < perWebhook; sent++) {
      const at = ctx.clock.now();
      // The lease runs on real time: a jump of the virtual clock must not free a delivery another
      // run is still posting (it would be posted twice, and out of order).
      const wall = Date.now();
      const head = await ctx.db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', hook.id)
        .where('delivered_at', 'is', null)
        .orderBy('event_id')
        .limit(1)
        .executeTakeFirst();
      if (!head || head.next_attempt_at > at) break;
      const leased = await ctx.db
        .updateTable('webhook_deliveries')
        .set({ leased_until: wall + leaseMs })
        .where('id', '=', head.id)
        // Still undelivered: another run may have posted it (and released its lease) since the read above.
        .where('delivered_at', 'is', null)
        .where((eb) => eb.or([eb('leased_until', 'is', null), eb('leased_until', '<', wall)]))
        .executeTakeFirst();
      if (Number(leased.numUpdatedRows) !== 1) break;
      const event = await ctx.db.selectFrom('events').selectAll().where('id', '=', head.event_id).executeTakeFirst();
      try {
        if (event) await post(ctx, hook.url, secret, head.id, JSON.stringify(describeEvent(event)), event.type);
        await ctx.db
          .updateTable('webhook_deliveries')
          .set({ delivered_at: ctx.clock.now(), attempts: head.attempts + 1, leased_until: null, last_error: null })
          .where('id', '=', head.id)
          .execute();
        delivered++;
      } catch (error) {
        const attempts = head.attempts + 1;
        await ctx.db
          .updateTable('webhook_deliveries')
          .set({
            attempts,
            next_attempt_at: ctx.clock.now() + backoffMs(attempts),
            leased_until: null,
            last_error: (error as Error).message.slice(0, 500),
          })
          .where('id', '=', head.id)
          .execute();
        break;
      }
    }
  }
  return delivered;
}

const kicks = new WeakMap<Platform, { running: Promise<unknown> | null; retry: NodeJS.Timeout | null }>();

/** When the first waiting delivery of some webhook may be tried again (clock ms), if any. */
async function nextAttemptAt(ctx: Platform): Promise<number | null> {
  const { rows } = await sql<{ next: number | null }>`
    select min(d.next_attempt_at) as next from webhook_deliveries d
    where d.delivered_at is null and d.event_id = (
      select min(e.event_id) from webhook_deliveries e where e.webhook_id = d.webhook_id and e.delivered_at is null)`.execute(
    ctx.db,
  );
  const next = rows[0]?.next;
  return next === null || next === undefined ? null : Number(next);
}

/**
 * Delivers soon after an event is written. The writer's transaction may not have committed
 * when this runs, so it looks again a little later too; while deliveries wait for a retry it
 * wakes up when the first is due (at most a minute later); the sweep catches anything else.
 */
export function kickWebhookDelivery(ctx: Platform, delays: number[] = [20, 250, 1_500]): void {
  let state = kicks.get(ctx);
  if (!state) {
    state = { running: null, retry: null };
    kicks.set(ctx, state);
  }
  const kick = state;
  const run = () => {
    kick.running ??= deliverWebhooks(ctx)
      .then(async () => {
        const next = await nextAttemptAt(ctx);
        if (next === null) return;
        if (kick.retry) clearTimeout(kick.retry);
        kick.retry = setTimeout(run, Math.min(Math.max(next - ctx.clock.now(), 20), 60_000));
        kick.retry.unref();
      })
      .catch((error: unknown) => ctx.log.warn({ err: (error as Error).message }, 'webhook delivery failed'))
      .finally(() => {
        kick.running = null;
      });
  };
  for (const delay of delays) setTimeout(run, delay).unref();
}
