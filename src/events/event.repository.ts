// Queries on events and scheduled events. An insert of events writes their webhook deliveries
// (the outbox, webhook.service.ts) in the same statement where the dialect allows it, and the
// hot inserts run as prepared statements, one per count of rows.

import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database, DialectName, Queryable, Tx } from '../db/database.ts';
import { prepared, type PreparedQuery } from '../db/prepared.ts';
import type { EventCause } from './event.ts';
import type { EventRow, EventScheduleRow, EventTable } from './event.table.ts';

/** What an event tells of which resource, recorded or scheduled. */
interface EventFacts {
  accountId: number | null;
  type: string;
  resource: { type: string; uuid: string };
  /** The event's data as JSON text (a scheduled event's is kept as written). */
  data: string;
}

/** An event to record: what happened, when, and who or what brought it about; eventRow makes its row. */
export interface NewEvent extends EventFacts {
  occurredAt: number;
  cause: EventCause | null;
}

/** An event the clock brings about at `dueAt`; scheduledRow makes its row. */
export interface NewScheduled extends EventFacts {
  dueAt: number;
}

type NewEventRow = Omit<EventRow, 'id'>;
type NewScheduledRow = Omit<EventScheduleRow, 'id'>;

/** The columns an event and a scheduled event share, from what it tells. */
function factsRow(event: EventFacts): Omit<NewScheduledRow, 'due_at'> {
  return {
    account_id: event.accountId,
    type: event.type,
    resource_type: event.resource.type,
    resource_uuid: event.resource.uuid,
    data: event.data,
  };
}

/** The one mapping of an event to record to its row. */
function eventRow(event: NewEvent): NewEventRow {
  return { ...factsRow(event), occurred_at: event.occurredAt, cause: event.cause };
}

/** The one mapping of a scheduled event to its row. */
function scheduledRow(event: NewScheduled): NewScheduledRow {
  return { ...factsRow(event), due_at: event.dueAt };
}

/** The one mapping of a scheduled event's row back to what was scheduled. */
export function rowToScheduled(row: EventScheduleRow): NewScheduled {
  return {
    accountId: row.account_id,
    type: row.type,
    resource: { type: row.resource_type, uuid: row.resource_uuid },
    data: row.data,
    dueAt: row.due_at,
  };
}

// Every read of the event feed and of a server's activity asks first (prepared: it runs often).
// The earliest due time, not "any due by now": min() reads one end of event_schedule_due on both
// databases, where a bound instant left PostgreSQL's generic plan free to scan the table.
const firstDue = prepared<[], { due_at: number | null }>(0, (db) =>
  db.selectFrom('event_schedule').select((eb) => eb.fn.min('due_at').as('due_at')),
);

/** The columns of an event row, in the order an insert binds them. */
const eventColumns = ['account_id', 'type', 'resource_type', 'resource_uuid', 'data', 'occurred_at', 'cause'] as const;
/** The columns of a scheduled event, in the order an insert binds them. */
const scheduledColumns = ['account_id', 'type', 'resource_type', 'resource_uuid', 'data', 'due_at'] as const;

/**
 * PostgreSQL: the events, their webhook deliveries and any events scheduled with them in one
 * statement: one delivery for each webhook of each event's account, selected from the inserted
 * events. Its row count is the number of deliveries.
 */
function insertWithDeliveries(db: Kysely<Database>, rows: Insertable<EventTable>[], scheduled: NewScheduledRow[]) {
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
  build: (db: Kysely<Database>, rows: Insertable<EventTable>[], scheduled: NewScheduledRow[]) => { compile(): unknown },
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

// Each server action schedules its end: prepared.
const insertScheduled = prepared<unknown[], never>(scheduledColumns.length, (db, ...values) =>
  db.insertInto('event_schedule').values(rowsOf<NewScheduledRow>(values, 0, 1, scheduledColumns)),
);

/** The columns of a scheduled event, named (not `*`: a statement prepared on PostgreSQL keeps its result shape). */
const scheduleColumns = ['id', 'account_id', 'type', 'resource_type', 'resource_uuid', 'data', 'due_at'] as const;

// Taking the scheduled events out in the statement that reads them also claims them.
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

export interface EventPage {
  after: number;
  account?: number;
  limit: number;
}

export const eventRepository = {
  /**
   * Inserts the events, in order, with a delivery for each webhook of each event's account, and
   * the scheduled events given with them. Answers whether any delivery was enqueued.
   */
  async insert(dialect: DialectName, trx: Queryable, events: NewEvent[], later: NewScheduled[] = []): Promise<boolean> {
    if (!events.length) {
      for (const event of later) await eventRepository.insertScheduled(trx, event);
      return false;
    }
    const rows = events.map(eventRow);
    const values = rows.flatMap((row) => eventColumns.map((column) => row[column]));
    if (dialect === 'postgres') {
      const scheduled = later.map(scheduledRow);
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
    for (const event of later) await eventRepository.insertScheduled(trx, event);
    const ids = inserted.filter((event) => event.account_id !== null).map((event) => event.id);
    if (!ids.length) return false;
    return (await deliveriesOfEvents.run(trx, JSON.stringify(ids))) > 0;
  },

  insertScheduled(trx: Queryable, event: NewScheduled): Promise<number> {
    const row = scheduledRow(event);
    return insertScheduled.run(trx, ...scheduledColumns.map((column) => row[column]));
  },

  /** Takes out the resource's scheduled events due by `now` (all of them with `all`). */
  takeScheduled(trx: Tx, uuid: string, now: number, all: boolean): Promise<EventScheduleRow[]> {
    return all ? takeAll.all(trx, uuid) : takeDue.all(trx, uuid, now);
  },

  /** Drops the resource's scheduled events of `type` not yet due. */
  async dropScheduled(trx: Tx, uuid: string, type: string, now: number): Promise<void> {
    await trx
      .deleteFrom('event_schedule')
      .where('resource_uuid', '=', uuid)
      .where('type', '=', type)
      .where('due_at', '>', now)
      .execute();
  },

  /** Whether any scheduled event is due by `now`: a read, so readers need no transaction when none is. */
  async anyDue(db: Queryable, now: number): Promise<boolean> {
    const first = (await firstDue.first(db))?.due_at;
    return first !== null && first !== undefined && Number(first) <= now;
  },

  /**
   * Claims up to `limit` scheduled events due by `now`, oldest first. PostgreSQL rows are locked
   * and locked ones skipped, so several instances sweep at once; SQLite serialises.
   */
  claimDue(dialect: DialectName, trx: Tx, now: number, limit: number): Promise<EventScheduleRow[]> {
    let query = trx
      .selectFrom('event_schedule')
      .selectAll()
      .where('due_at', '<=', now)
      .orderBy('due_at')
      .orderBy('id')
      .limit(limit);
    if (dialect === 'postgres') query = query.forUpdate().skipLocked();
    return query.execute();
  },

  async deleteScheduled(trx: Tx, ids: number[]): Promise<void> {
    await trx.deleteFrom('event_schedule').where('id', 'in', ids).execute();
  },

  /** Events after a sequence number, oldest first. */
  page(db: Queryable, page: EventPage): Promise<EventRow[]> {
    let select = db.selectFrom('events').selectAll().where('id', '>', page.after).orderBy('id').limit(page.limit);
    if (page.account !== undefined) select = select.where('account_id', '=', page.account);
    return select.execute();
  },

  find(db: Queryable, id: number): Promise<EventRow | undefined> {
    return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** The newest sequence number (0 when there is none). */
  async lastId(db: Queryable): Promise<number> {
    const row = await db
      .selectFrom('events')
      .select(sql<number>`coalesce(max(id), 0)`.as('last'))
      .executeTakeFirstOrThrow();
    return Number(row.last);
  },

  /** Notes which server an image was taken of (its activity tells the image's events). */
  async noteImage(trx: Tx, imageUuid: string, serverUuid: string): Promise<void> {
    await trx.insertInto('server_images').values({ image_uuid: imageUuid, server_uuid: serverUuid }).execute();
  },

  /** The images ever taken of a server, removed ones too. */
  async imagesOf(db: Queryable, serverUuid: string): Promise<string[]> {
    const rows = await db
      .selectFrom('server_images')
      .select('image_uuid')
      .where('server_uuid', '=', serverUuid)
      .execute();
    return rows.map((row) => row.image_uuid);
  },

  /** The newest events of these resources by when they happened, billing's own (invoice items) left out. */
  newestOfResources(db: Queryable, uuids: string[], limit: number): Promise<EventRow[]> {
    return (
      db
        .selectFrom('events')
        .selectAll()
        .where('resource_uuid', 'in', uuids)
        .where('type', 'not like', 'invoice_item.%')
        // In the order things happened: a transition's end is recorded when it is next read, after
        // what happened since, but stamped when it ended (ids break ties within one instant).
        .orderBy('occurred_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute()
    );
  },
};
