// Events: every change of a resource's state, numbered in the order Nubis records it. A change
// that happens now is recorded in the caller's transaction; one the clock brings about later
// (a transition that ends, a snapshot that completes) is scheduled for its time and becomes an
// event once due — when anything reads events, when the clock is moved, when the resource
// changes again, or at the next sweep — stamped with the time it happened. A resource's due
// events always come before its next one, and a scheduled change that a newer action
// superseded is dropped, so a resource's events tell its life in order.

import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database, Queryable, Tx } from '../db/database.ts';
import { prepared, type PreparedQuery } from '../db/prepared.ts';
import type { Platform } from '../platform/context.ts';
import type { EventRow, EventScheduleRow, EventTable } from './event.table.ts';
import { describeEvent, type NubisEvent } from './event-shape.ts';
import { kickWebhookDelivery } from './webhook.service.ts';
import { transaction } from '../db/transaction.ts';

export interface EventInput {
  accountId: number | null;
  /** `server.created`, `server.transition`, `server.power`, `snapshot.completed`… */
  type: string;
  resource: { type: string; uuid: string };
  data?: Record<string, unknown>;
  /** Who or what brought it about; a scheduled event is always the engine's (the clock's, simulated). */
  cause?: EventCause;
}

/** Who or what brought an event about: a customer's request, the operator, a sweep, or the compute engine. */
export type EventCause = 'customer' | 'operator' | 'sweep' | 'engine';

type NewEvent = Omit<EventRow, 'id'>;
type NewScheduled = Omit<EventScheduleRow, 'id'>;

/** The columns of an event row, in the order an insert binds them. */
const eventColumns = ['account_id', 'type', 'resource_type', 'resource_uuid', 'data', 'occurred_at', 'cause'] as const;
/** The columns of a scheduled event, in the order an insert binds them. */
const scheduledColumns = ['account_id', 'type', 'resource_type', 'resource_uuid', 'data', 'due_at'] as const;

/**
 * PostgreSQL: the events, their webhook deliveries (the outbox, webhook.service.ts) and any
 * events scheduled with them in one statement: one delivery for each webhook of each event's
 * account, selected from the inserted events. Its row count is the number of deliveries.
 */
function insertWithDeliveries(db: Kysely<Database>, rows: Insertable<EventTable>[], scheduled: NewScheduled[]) {
  const events = db.with('inserted', (qc) => qc.insertInto('events').values(rows).returning(['id', 'account_id']));
  const all = scheduled.length
    ? (events.with('scheduled', (qc) =>
        qc.insertInto('event_schedule').values(scheduled).returning('id'),
      ) as unknown as typeof events)
    : events;
  return all
    .insertInto('webhook_deliveries')
    .columns(['webhook_id', 'event_id', 'next_attempt_at'])
    .expression((eb) =>
      eb
        .selectFrom('inserted')
        .innerJoin('webhooks', 'webhooks.account_id', 'inserted.account_id')
        .select(['webhooks.id as webhook_id', 'inserted.id as event_id', sql.lit(0).as('next_attempt_at')]),
    );
}

/** SQLite (no insert in a WITH): the events first, then their deliveries from the ids it answers. */
function insertReturningIds(db: Kysely<Database>, rows: Insertable<EventTable>[]) {
  return db.insertInto('events').values(rows).returning(['id', 'account_id']);
}

// The ids are passed as one JSON array, so one prepared statement serves any number of events.
const deliveriesOfEvents = prepared<[string], never>(1, (db, ids) =>
  db
    .insertInto('webhook_deliveries')
    .columns(['webhook_id', 'event_id', 'next_attempt_at'])
    .expression(
      db
        .selectFrom('events')
        .innerJoin('webhooks', 'webhooks.account_id', 'events.account_id')
        .select(['webhooks.id as webhook_id', 'events.id as event_id', sql.lit(0).as('next_attempt_at')])
        .where('events.id', 'in', sql<number>`(select value from json_each(${ids}))`),
    ),
);

/** Batches this long or shorter run as prepared statements (one per length); a sweep's longer ones are built each time. */
const preparedBatch = 8;
const withDeliveriesByCount = new Map<string, PreparedQuery<unknown[], never>>();
const returningIdsByCount = new Map<string, PreparedQuery<unknown[], { id: number; account_id: number | null }>>();

/** `count` rows of `columns` from the flat parameters of a prepared insert, from `offset`. */
function rowsOf<T>(values: unknown[], offset: number, count: number, columns: readonly string[]): T[] {
  return Array.from(
    { length: count },
    (_, row) =>
      Object.fromEntries(
        columns.map((column, index) => [column, values[offset + row * columns.length + index]]),
      ) as unknown as T,
  );
}

/** The prepared insert of `events` events and `scheduled` scheduled ones, made once for each pair of counts. */
function preparedFor<R>(
  cache: Map<string, PreparedQuery<unknown[], R>>,
  events: number,
  scheduled: number,
  build: (db: Kysely<Database>, rows: Insertable<EventTable>[], scheduled: NewScheduled[]) => { compile(): unknown },
): PreparedQuery<unknown[], R> {
  const key = `${events}:${scheduled}`;
  let query = cache.get(key);
  if (!query) {
    const eventValues = events * eventColumns.length;
    query = prepared<unknown[], R>(
      eventValues + scheduled * scheduledColumns.length,
      (db, ...values) =>
        build(
          db,
          rowsOf(values, 0, events, eventColumns),
          rowsOf(values, eventValues, scheduled, scheduledColumns),
        ) as never,
    );
    cache.set(key, query);
  }
  return query;
}

/**
 * Inserts the events, in order, with a delivery for each webhook of each event's account (in the
 * same transaction: none is lost), and the scheduled events given with them. Answers whether any
 * delivery was enqueued.
 */
async function insertEvents(
  ctx: Platform,
  trx: Queryable,
  rows: NewEvent[],
  scheduled: NewScheduled[] = [],
): Promise<boolean> {
  if (!rows.length) {
    for (const row of scheduled) await insertScheduledRow(trx, row);
    return false;
  }
  const values = rows.flatMap((row) => eventColumns.map((column) => row[column]));
  if (ctx.dialect === 'postgres') {
    if (rows.length + scheduled.length <= preparedBatch) {
      const query = preparedFor(withDeliveriesByCount, rows.length, scheduled.length, insertWithDeliveries);
      const scheduledValues = scheduled.flatMap((row) => scheduledColumns.map((column) => row[column]));
      return (await query.run(trx, ...values, ...scheduledValues)) > 0;
    }
    const result = await insertWithDeliveries(trx as Kysely<Database>, rows, scheduled).executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }
  const inserted =
    rows.length <= preparedBatch
      ? await preparedFor(returningIdsByCount, rows.length, 0, insertReturningIds).all(trx, ...values)
      : await insertReturningIds(trx as Kysely<Database>, rows).execute();
  for (const row of scheduled) await insertScheduledRow(trx, row);
  const ids = inserted.filter((event) => event.account_id !== null).map((event) => event.id);
  if (!ids.length) return false;
  return (await deliveriesOfEvents.run(trx, JSON.stringify(ids))) > 0;
}

// Each server action schedules its end: prepared.
const insertScheduled = prepared<unknown[], never>(scheduledColumns.length, (db, ...values) =>
  db.insertInto('event_schedule').values(rowsOf<NewScheduled>(values, 0, 1, scheduledColumns)),
);

function insertScheduledRow(trx: Queryable, row: NewScheduled): Promise<number> {
  return insertScheduled.run(trx, ...scheduledColumns.map((column) => row[column]));
}

function fromSchedule(row: EventScheduleRow): NewEvent {
  return {
    account_id: row.account_id,
    type: row.type,
    resource_type: row.resource_type,
    resource_uuid: row.resource_uuid,
    data: row.data,
    occurred_at: row.due_at,
    cause: 'engine',
  };
}

/** The columns of a scheduled event, named (not `*`: a statement prepared on PostgreSQL keeps its result shape). */
const scheduleColumns = ['id', 'account_id', 'type', 'resource_type', 'resource_uuid', 'data', 'due_at'] as const;

// Settling takes the scheduled events out in the statement that reads them, so it also claims
// them: of two settles (or a settle and a sweep) of one resource, one records them, the other
// waits for it and finds none.
const takeDue = prepared<[string, number], EventScheduleRow>(2, (db, uuid, now) =>
  db
    .deleteFrom('event_schedule')
    .where('resource_uuid', '=', uuid)
    .where('due_at', '<=', now)
    .returning(scheduleColumns),
);
const takeAll = prepared<[string], EventScheduleRow>(1, (db, uuid) =>
  db.deleteFrom('event_schedule').where('resource_uuid', '=', uuid).returning(scheduleColumns),
);

/**
 * Before a resource changes: its scheduled events that are due become events (they happened
 * first), answered in the order they happened; with `supersede`, the ones not yet due are
 * dropped (the new change replaces them).
 */
async function settleResource(trx: Tx, uuid: string, now: number, supersede: boolean): Promise<NewEvent[]> {
  const taken = supersede ? await takeAll.all(trx, uuid) : await takeDue.all(trx, uuid, now);
  return taken
    .filter((row) => row.due_at <= now)
    .sort((a, b) => a.due_at - b.due_at || a.id - b.id)
    .map(fromSchedule);
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
  const rows: NewEvent[] = [];
  for (const uuid of new Set(events.map((event) => event.resource.uuid))) {
    if (options.replaces)
      await trx
        .deleteFrom('event_schedule')
        .where('resource_uuid', '=', uuid)
        .where('type', '=', options.replaces)
        .where('due_at', '>', now)
        .execute();
    rows.push(...(await settleResource(trx, uuid, now, options.supersede ?? false)));
  }
  for (const event of events) rows.push(rowOf(event, now));
  // Nothing to deliver, nothing to wake: an account without webhooks costs no delivery run.
  if (await insertEvents(ctx, trx, rows)) kickWebhookDelivery(ctx);
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
  const rows = events.map((event) => rowOf(event, now));
  const scheduled = later.map(({ event, dueAt }) => scheduledRowOf(event, dueAt));
  if (await insertEvents(ctx, trx, rows, scheduled)) kickWebhookDelivery(ctx);
}

function scheduledRowOf(event: EventInput, dueAt: number): NewScheduled {
  return {
    account_id: event.accountId,
    type: event.type,
    resource_type: event.resource.type,
    resource_uuid: event.resource.uuid,
    data: JSON.stringify(event.data ?? {}),
    due_at: dueAt,
  };
}

function rowOf(event: EventInput, at: number): NewEvent {
  const { due_at, ...row } = scheduledRowOf(event, at);
  return { ...row, occurred_at: due_at, cause: event.cause ?? null };
}

/** Schedules a change the clock brings about at `dueAt` (recorded now if already due). */
export async function scheduleEvent(ctx: Platform, trx: Tx, event: EventInput, dueAt: number): Promise<void> {
  if (dueAt <= ctx.clock.now()) return recordEvent(ctx, trx, event);
  await insertScheduledRow(trx, scheduledRowOf(event, dueAt));
}

/**
 * Turns every scheduled event that is due into an event, in the order they happened. Safe on
 * several instances at once: PostgreSQL rows are claimed with SKIP LOCKED, SQLite serialises.
 */
export async function recordDueEvents(ctx: Platform, batch = 500): Promise<number> {
  let total = 0;
  let enqueued = false;
  for (;;) {
    const now = ctx.clock.now();
    const moved = await transaction(ctx, async (trx) => {
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
      if (await insertEvents(ctx, trx, due.map(fromSchedule))) enqueued = true;
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
