// Webhooks: each account's events POSTed to the URLs the operator set for it, signed with
// HMAC-SHA256 of the webhook's secret. Deliveries are an outbox written with the event, in its
// transaction (event.service.ts), so none is lost; each webhook gets its events in order (a
// failed one holds the ones after it), retried with back-off until the receiver takes it. Any
// instance may deliver: a short lease keeps two from posting the same delivery at once. The body
// is the event's wire shape (event-payload.ts).

import { createHmac } from 'node:crypto';
import type { Platform } from '../platform/context.ts';
import { eventOfRow } from './event.ts';
import { eventPayload } from './event-payload.ts';
import { eventRepository } from './event.repository.ts';
import { webhookRepository } from './webhook.repository.ts';

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
  let delivered = 0;
  for (const webhookId of await webhookRepository.waiting(ctx.db, now, 200)) {
    const hook = await webhookRepository.find(ctx.db, webhookId);
    if (!hook) continue;
    const secret = ctx.secrets.decrypt(hook.secret_sealed);
    for (let sent = 0; sent < perWebhook; sent++) {
      const at = ctx.clock.now();
      // The lease runs on real time: a jump of the virtual clock must not free a delivery another
      // run is still posting (it would be posted twice, and out of order).
      const wall = Date.now();
      const head = await webhookRepository.head(ctx.db, hook.id);
      if (!head || head.next_attempt_at > at) break;
      if (!(await webhookRepository.lease(ctx.db, head.id, wall, wall + leaseMs))) break;
      const event = await eventRepository.find(ctx.db, head.event_id);
      try {
        if (event) {
          const body = JSON.stringify(eventPayload(eventOfRow(event)));
          await post(ctx, hook.url, secret, head.id, body, event.type);
        }
        await webhookRepository.delivered(ctx.db, head.id, ctx.clock.now(), head.attempts + 1);
        delivered++;
      } catch (error) {
        const attempts = head.attempts + 1;
        const message = (error as Error).message.slice(0, 500);
        await webhookRepository.failed(ctx.db, head.id, attempts, ctx.clock.now() + backoffMs(attempts), message);
        break;
      }
    }
  }
  return delivered;
}

const kicks = new WeakMap<Platform, { running: Promise<unknown> | null; retry: NodeJS.Timeout | null }>();

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
        const next = await webhookRepository.nextAttemptAt(ctx.db);
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
