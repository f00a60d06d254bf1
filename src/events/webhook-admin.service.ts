// What the operator does with an account's webhooks: add one (URL and signing secret, the
// secret sealed at rest), list them with their deliveries' state, remove one.

import type { Platform } from '../platform/context.ts';
import { Invalid, NotFound } from '../platform/errors.ts';
import { isoOrNull, isoSeconds } from '../platform/clock.ts';
import { findAccount } from '../accounts/operator.service.ts';

export interface WebhookView {
  id: number;
  url: string;
  created: string;
  delivered: number;
  pending: number;
  deliveries: {
    id: number;
    event: number;
    delivered: string | null;
    attempts: number;
    next_attempt: string | null;
    last_error: string | null;
  }[];
}

function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Invalid('url', 'must be an absolute http or https URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new Invalid('url', 'must be an absolute http or https URL');
}

export async function addWebhook(
  ctx: Platform,
  accountRef: string,
  input: { url: string; secret: string },
): Promise<WebhookView> {
  checkUrl(input.url);
  const account = await findAccount(ctx, accountRef);
  const row = await ctx.db
    .insertInto('webhooks')
    .values({
      account_id: account.id,
      url: input.url,
      secret_sealed: ctx.secrets.encrypt(input.secret),
      created_at: ctx.clock.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { id: row.id, url: row.url, created: isoSeconds(row.created_at), delivered: 0, pending: 0, deliveries: [] };
}

export async function listWebhooks(ctx: Platform, accountRef: string): Promise<WebhookView[]> {
  const account = await findAccount(ctx, accountRef);
  const hooks = await ctx.db
    .selectFrom('webhooks')
    .selectAll()
    .where('account_id', '=', account.id)
    .orderBy('id')
    .execute();
  const views: WebhookView[] = [];
  for (const hook of hooks) {
    const deliveries = await ctx.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', hook.id)
      .orderBy('id', 'desc')
      .limit(50)
      .execute();
    const counts = await ctx.db
      .selectFrom('webhook_deliveries')
      .select((eb) => [eb.fn.count<number>('delivered_at').as('delivered'), eb.fn.countAll<number>().as('all')])
      .where('webhook_id', '=', hook.id)
      .executeTakeFirstOrThrow();
    views.push({
      id: hook.id,
      url: hook.url,
      created: isoSeconds(hook.created_at),
      delivered: Number(counts.delivered),
      pending: Number(counts.all) - Number(counts.delivered),
      deliveries: deliveries.map((row) => ({
        id: row.id,
        event: row.event_id,
        delivered: isoOrNull(row.delivered_at),
        attempts: row.attempts,
        next_attempt: row.delivered_at === null ? isoSeconds(row.next_attempt_at) : null,
        last_error: row.last_error,
      })),
    });
  }
  return views;
}

export async function removeWebhook(ctx: Platform, accountRef: string, id: number): Promise<void> {
  const account = await findAccount(ctx, accountRef);
  const result = await ctx.db
    .deleteFrom('webhooks')
    .where('id', '=', id)
    .where('account_id', '=', account.id)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) !== 1) throw new NotFound('webhook');
}
