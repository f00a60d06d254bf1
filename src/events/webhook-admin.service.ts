// What the operator does with an account's webhooks: add one (URL and signing secret, the
// secret sealed at rest), list them with their deliveries' state, remove one.

import type { Platform } from '../platform/context.ts';
import { Invalid, NotFound } from '../platform/errors.ts';
import { findAccount } from '../accounts/operator.service.ts';
import { webhookRepository } from './webhook.repository.ts';
import { isHttpUrl } from '../platform/http-url.ts';

/** A webhook with the state of its deliveries (times in clock ms; the operator API shapes it). */
export interface Webhook {
  id: number;
  url: string;
  createdAt: number;
  delivered: number;
  pending: number;
  /** The newest first. */
  deliveries: WebhookDelivery[];
}

export interface WebhookDelivery {
  id: number;
  eventId: number;
  deliveredAt: number | null;
  attempts: number;
  /** Null once delivered. */
  nextAttemptAt: number | null;
  lastError: string | null;
}

/** How many of a webhook's newest deliveries a listing shows. */
const shownDeliveries = 50;

export async function addWebhook(
  ctx: Platform,
  accountRef: string,
  input: { url: string; secret: string },
): Promise<Webhook> {
  if (!isHttpUrl(input.url)) throw new Invalid('url', 'must be an absolute http or https URL');
  const account = await findAccount(ctx, accountRef);
  const row = await webhookRepository.insert(ctx.db, {
    accountId: account.id,
    url: input.url,
    secretSealed: ctx.secrets.encrypt(input.secret),
    createdAt: ctx.clock.now(),
  });
  return { id: row.id, url: row.url, createdAt: row.created_at, delivered: 0, pending: 0, deliveries: [] };
}

export async function listWebhooks(ctx: Platform, accountRef: string): Promise<Webhook[]> {
  const account = await findAccount(ctx, accountRef);
  const webhooks: Webhook[] = [];
  for (const hook of await webhookRepository.ofAccount(ctx.db, account.id)) {
    const deliveries = await webhookRepository.newestDeliveries(ctx.db, hook.id, shownDeliveries);
    const counts = await webhookRepository.deliveryCounts(ctx.db, hook.id);
    webhooks.push({
      id: hook.id,
      url: hook.url,
      createdAt: hook.created_at,
      delivered: counts.delivered,
      pending: counts.all - counts.delivered,
      deliveries: deliveries.map((row) => ({
        id: row.id,
        eventId: row.event_id,
        deliveredAt: row.delivered_at,
        attempts: row.attempts,
        nextAttemptAt: row.delivered_at === null ? row.next_attempt_at : null,
        lastError: row.last_error,
      })),
    });
  }
  return webhooks;
}

export async function removeWebhook(ctx: Platform, accountRef: string, id: number): Promise<void> {
  const account = await findAccount(ctx, accountRef);
  if (!(await webhookRepository.remove(ctx.db, account.id, id))) throw new NotFound('webhook');
}
