// Events: every change of a resource's state, numbered in the order Nubis records it. A change
// that happens now is recorded in the caller's transaction; one the clock brings about later
// (a transition that ends, a snapshot that completes) is scheduled for its time and becomes an
// event once due — when anything reads events, when the clock is moved, when the resource
// changes again, or at the next sweep — stamped with the time it happened. A resource's due
// events always come before its next one, and a scheduled change that a newer action
// superseded is dropped, so a resource's events tell its life in order.

import type { Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { type EventCause, eventOfRow, type NubisEvent } from './event.ts';
import { eventRepository, type NewEvent, type NewScheduled, rowToScheduled } from './event.repository.ts';
import { kickWebhookDelivery } from './webhook.service.ts';
import { transaction } from '../db/transaction.ts';

export type { EventCause } from './event.ts';

export interface EventInput {
  accountId: number | null;
  /** `server.created`, `server.transition`, `server.power`, `snapshot.completed`… */
  type: string;
  resource: { type: string; uuid: string };
  data?: Record<string, unknown>;
  /** Who or what brought it about; a scheduled event is always the engine's (the clock's, simulated). */
  cause?: EventCause;
}

/**
 * Before a resource changes: its scheduled events that are due become events (they happened
 * first), answered in the order they happened; with `supersede`, the ones not yet due are
 * dropped (the new change replaces them).
 */
/** A scheduled event that came due, as the event it becomes: at its due time, the engine's doing. */
function dueEvent({ dueAt, ...facts }: NewScheduled): NewEvent {
  return { ...facts, occurredAt: dueAt, cause: 'engine' };
}

async function settleResource(trx: Tx, uuid: string, now: number, supersede: boolean): Promise<NewEvent[]> {
  // Taking them out of the schedule claims them: of two settles (or a settle and a sweep) of one
  // resource, one records them, the other waits for it and finds none.
  const taken = await eventRepository.takeScheduled(trx, uuid, now, supersede);
  return taken
    .filter((row) => row.due_at <= now)
    .sort((a, b) => a.due_at - b.due_at || a.id - b.id)
    .map((row) => dueEvent(rowToScheduled(row)));
}

export interface RecordOptions {
  /** The change replaces whatever the resource was scheduled to do (a new server action). */
  supersede?: boolean;
  /**
   * The change is one that was scheduled for later under this type (a real engine finished
   * early), so that scheduled one is dropped.
   */
  replaces?: string;
}

/** Records a change that happens now, in the caller's transaction (see recordEvents). */
export function recordEvent(ctx: Platform, trx: Tx, event: EventInput, options: RecordOptions = {}): Promise<void> {
  return recordEvents(ctx, trx, [event], options);
}

/**
 * Records changes that happen now, in the caller's transaction, numbered in the order given, in
 * one insert. Each resource's due scheduled events are recorded first, in the same insert.
 */
export async function recordEvents(
  ctx: Platform,
  trx: Tx,
  events: EventInput[],
  options: RecordOptions = {},
): Promise<void> {
  if (!events.length) return;
  const now = ctx.clock.now();
  const happened: NewEvent[] = [];
  for (const uuid of new Set(events.map((event) => event.resource.uuid))) {
    if (options.replaces) await eventRepository.dropScheduled(trx, uuid, options.replaces, now);
    happened.push(...(await settleResource(trx, uuid, now, options.supersede ?? false)));
  }
  for (const event of events) happened.push(happeningOf(event, now));
  // Nothing to deliver, nothing to wake: an account without webhooks costs no delivery run.
  if (await eventRepository.insert(ctx.dialect, trx, happened)) kickWebhookDelivery(ctx);
}

/**
 * The first events of resources made in this very transaction, recorded in order, and what the
 * clock will bring about for them (`later`, each at its `dueAt`): nothing can be scheduled for a
 * new resource yet, so there is nothing to settle, and on PostgreSQL it all is one statement.
 */
export async function recordCreation(
  ctx: Platform,
  trx: Tx,
  events: EventInput[],
  later: { event: EventInput; dueAt: number }[] = [],
): Promise<void> {
  const now = ctx.clock.now();
  const happened = events.map((event) => happeningOf(event, now));
  const scheduled = later.map(({ event, dueAt }) => scheduledOf(event, dueAt));
  if (await eventRepository.insert(ctx.dialect, trx, happened, scheduled)) kickWebhookDelivery(ctx);
}

/** The event as scheduled for `dueAt`. */
function scheduledOf(event: EventInput, dueAt: number): NewScheduled {
  return {
    accountId: event.accountId,
    type: event.type,
    resource: event.resource,
    data: JSON.stringify(event.data ?? {}),
    dueAt,
  };
}

/** The event as happening `at`. */
function happeningOf(event: EventInput, at: number): NewEvent {
  const { dueAt, ...facts } = scheduledOf(event, at);
  return { ...facts, occurredAt: dueAt, cause: event.cause ?? null };
}

/** Schedules a change the clock brings about at `dueAt` (recorded now if already due). */
export async function scheduleEvent(ctx: Platform, trx: Tx, event: EventInput, dueAt: number): Promise<void> {
  if (dueAt <= ctx.clock.now()) return recordEvent(ctx, trx, event);
  await eventRepository.insertScheduled(trx, scheduledOf(event, dueAt));
}

/**
 * Turns every scheduled event that is due into an event, in the order they happened. Safe on
 * several instances at once: PostgreSQL rows are claimed with SKIP LOCKED, SQLite serialises.
 */
export async function recordDueEvents(ctx: Platform, batch = 500): Promise<number> {
  let total = 0;
  let enqueued = false;
  // Readers call this on every request: when nothing is due, a read answers without a transaction
  // (which on SQLite waits its turn behind every write, and on PostgreSQL costs two round trips more).
  if (!(await eventRepository.anyDue(ctx.db, ctx.clock.now()))) return 0;
  for (;;) {
    const now = ctx.clock.now();
    const moved = await transaction(ctx, async (trx) => {
      const due = await eventRepository.claimDue(ctx.dialect, trx, now, batch);
      if (!due.length) return 0;
      await eventRepository.deleteScheduled(
        trx,
        due.map((row) => row.id),
      );
      if (
        await eventRepository.insert(
          ctx.dialect,
          trx,
          due.map((row) => dueEvent(rowToScheduled(row))),
        )
      )
        enqueued = true;
      return due.length;
    });
    total += moved;
    if (moved < batch) break;
  }
  if (enqueued) kickWebhookDelivery(ctx);
  return total;
}

export interface EventQuery {
  after?: number;
  account?: number;
  limit?: number;
}

export async function listEvents(ctx: Platform, query: EventQuery): Promise<NubisEvent[]> {
  await recordDueEvents(ctx);
  const rows = await eventRepository.page(ctx.db, {
    after: query.after ?? 0,
    account: query.account,
    limit: query.limit ?? 100,
  });
  return rows.map(eventOfRow);
}

/** The newest sequence number (0 when there is none). */
export function lastEventId(ctx: Platform): Promise<number> {
  return eventRepository.lastId(ctx.db);
}
