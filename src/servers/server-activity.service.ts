// A server's history for its page: the events Nubis recorded of the server and of the
// snapshots and backups taken of it, newest first in the order they happened, each with its cause (customer, operator,
// sweep, engine). Billing's own events (invoice items) are the billing page's, not told here.

import type { Actor, Platform } from '../platform/context.ts';
import { recordDueEvents } from '../events/event.service.ts';
import { eventOfRow, type NubisEvent } from '../events/event.ts';
import { eventRepository } from '../events/event.repository.ts';
import { findServer } from './server.service.ts';

/** The most a server's activity answers. */
export const ACTIVITY_LIMIT = 100;

export async function serverActivity(
  ctx: Platform,
  actor: Actor,
  ref: string | number,
  limit = ACTIVITY_LIMIT,
): Promise<NubisEvent[]> {
  const server = await findServer(ctx, ctx.db, actor.accountId, ref);
  // Transitions that ended by now are told, stamped with the time they ended.
  await recordDueEvents(ctx);
  // The server's images, a removed one too (noted when it was taken).
  const images = await eventRepository.imagesOf(ctx.db, server.uuid);
  const rows = await eventRepository.newestOfResources(ctx.db, [server.uuid, ...images], limit);
  return rows.map(eventOfRow);
}
