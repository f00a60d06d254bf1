// Events: every change of a resource's state, numbered in the order Nubis records it. A change
// that happens now is recorded in the caller's transaction; one the clock brings about later
// (a transition that ends, a snapshot that completes) is scheduled for its time and becomes an
// event once due — when anything reads events, when the clock is moved, when the resource
// changes again, or at the next sweep — stamped with the time it happened. A resource's due
// events always come before its next one, and a scheduled change that a newer action
// superseded is dropped, so a resource's events tell its life in order.

import { sql } from 'kysely';
import type { Queryable, Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import type { EventRow, EventScheduleRow } from './event.table.ts';
import { describeEvent, type NubisEvent } from './event-shape.ts';
import { enqueueDeliveries, kickWebhookDelivery } from './webhook.service.ts';

export interface EventInput {
  accountId: number | null;
  /** `server.created`, `server.transition`, `server.power`, `snapshot.completed`… */
  type: string;
  resource: { type: string; uuid: string };
  data?: Record<string, unknown>;
}

async function insertEvents(trx: Queryable, rows: Omit<EventRow, 'id'>[]): Promise<void> {
  if (!rows.length) return;
  const inserted = await trx.insertInto('events').values(rows).returning(['id', 'account_id']).execute();
  await enqueueDeliveries(trx, inserted);
}

function fromSchedule(row: EventScheduleRow): Omit<EventRow, 'id'> {
  return {
    account_id: row.account_id,
    type: row.type,
    resource_type: row.resource_type,
    resource_uuid: row.resource_uuid,
    data: row.data,
    occurred_at: row.due_at,
  };
}

/**
 * Before a resource changes: its scheduled events that are due become events (they happened
 * first); with `supersede`, the ones not yet due are dropped (the new change replaces them).
 */
async function settleResource(trx: Tx, uuid: string, now: number, supersede: boolean): Promise<void> {
  const scheduled = await trx
    .selectFrom('event_schedule')
    .selectAll()
    .where('resource_uuid', '=', uuid)
    .orderBy('due_at')
    .orderBy('id')
    .execute();
  if (!scheduled.length) return;
  const due = scheduled.filter((row) => row.due_at <= now);
  await insertEvents(trx, due.map(fromSchedule));
  const gone = supersede ? scheduled : due;
  if (gone.length)
    await trx
      .deleteFrom('event_schedule')
      .where(
        'id',
        'in',
        gone.map((row) => row.id),
      )
      .execute();
}

/**
 * Records a change that happens now, in the caller's transaction. `supersede`: the change
 * replaces whatever the resource was scheduled to do (a new server action). `replaces`: the change
 * is one that was scheduled for later under this type (a real engine finished early), so that
 * scheduled one is dropped.
 */
export async function recordEvent(
  ctx: Platform,
  trx: Tx,
  event: EventInput,
  options: { supersede?: boolean; replaces?: string } = {},
): Promise<void> {
  const now = ctx.clock.now();
  if (options.replaces)
    await trx
      .deleteFrom('event_schedule')
      .where('resource_uuid', '=', event.resource.uuid)
      .where('type', '=', options.replaces)
      .where('due_at', '>', now)
      .execute();
  await settleResource(trx, event.resource.uuid, now, options.supersede ?? false);
  await insertEvents(trx, [
    {
      account_id: event.accountId,
      type: event.type,
      resource_type: event.resource.type,
      resource_uuid: event.resource.uuid,
      data: JSON.stringify(event.data ?? {}),
      occurred_at: now,
    },
  ]);
  kickWebhookDelivery(ctx);
}

/** Schedules a change the clock brings about at `dueAt` (recorded now if already due). */
export async function scheduleEvent(ctx: Platform, trx: Tx, event: EventInput, dueAt: number): Promise<void> {
  if (dueAt <= ctx.clock.now()) return recordEvent(ctx, trx, event);
  await trx
    .insertInto('event_schedule')
    .values({
      account_id: event.accountId,
      type: event.type,
      resource_type: event.resource.type,
      resource_uuid: event.resource.uuid,
      data: JSON.stringify(event.data ?? {}),
      due_at: dueAt,
    })
    .execute();
}

/**
 * Turns every scheduled event that is due into an event, in the order they happened. Safe on
 * several instances at once: PostgreSQL rows are claimed with SKIP LOCKED, SQLite serialises.
 */
export async function recordDueEvents(ctx: Platform, batch = 500): Promise<number> {
  let total = 0;
  for (;;) {
    const now = ctx.clock.now();
    const moved = await ctx.db.transaction().execute(async (trx) => {
      let query = trx
        .selectFrom('event_schedule')
        .selectAll()
        .where('due_at', '<=', now)
        .orderBy('due_at')
        .orderBy('id')
        .limit(batch);
      if (ctx.dialect === 'postgres') query = query.forUpdate().skipLocked();
      const due = await query.execute();
      if (!due.length) return 0;
      await trx
        .deleteFrom('event_schedule')
        .where(
          'id',
          'in',
          due.map((row) => row.id),
        )
        .execute();
      await insertEvents(trx, due.map(fromSchedule));
      return due.length;
    });
    total += moved;
    if (moved < batch) break;
  }
  if (total) kickWebhookDelivery(ctx);
  return total;
}

export interface EventQuery {
  after?: number;
  account?: number;
  limit?: number;
}

export async function listEvents(ctx: Platform, query: EventQuery): Promise<NubisEvent[]> {
  await recordDueEvents(ctx);
  let select = ctx.db
    .selectFrom('events')
    .selectAll()
    .where('id', '>', query.after ?? 0)
    .orderBy('id')
    .limit(query.limit ?? 100);
  if (query.account !== undefined) select = select.where('account_id', '=', query.account);
  return (await select.execute()).map(describeEvent);
}

/** The newest sequence number (0 when there is none). */
export async function lastEventId(ctx: Platform): Promise<number> {
  const row = await ctx.db
    .selectFrom('events')
    .select(sql<number>`coalesce(max(id), 0)`.as('last'))
    .executeTakeFirstOrThrow();
  return Number(row.last);
}
