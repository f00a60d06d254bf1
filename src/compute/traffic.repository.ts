// The traffic meter's queries (compute/traffic-meter.ts keeps the rules): each server's last NIC
// reading, replaced by compare-and-set, its bytes per calendar month, and the month's readings of
// the servers a read shows.

import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import type { Database, Queryable } from '../db/database.ts';
import { jsonTuples, objectsOf } from '../db/json-tuples.ts';
import { prepared, type PreparedQuery } from '../db/prepared.ts';
import type { TrafficReadingRow } from './traffic.table.ts';

export type LastReading = Pick<TrafficReadingRow, 'epoch' | 'counter' | 'read_at'>;

/** A server's last reading with the bytes its meter holds for one month. */
export type MonthReading = LastReading & { server_uuid: string; bytes: number | string | null };

/** Which servers' readings a query reads: a condition on `traffic_readings.server_uuid`. */
export type ReadingsOf = (
  eb: ExpressionBuilder<Database, 'traffic_readings' | 'traffic_months'>,
) => Expression<SqlBool>;

const readingsOfUuids =
  (uuids: readonly string[]): ReadingsOf =>
  (eb) =>
    eb('traffic_readings.server_uuid', 'in', uuids);

/**
 * The readings of the servers `which` names with the month's bytes beside each; one statement (a
 * month's bytes exist only beside the reading that added them).
 */
function monthReadingsQuery(db: Queryable, start: number, which: ReadingsOf) {
  return db
    .selectFrom('traffic_readings')
    .leftJoin('traffic_months', (join) =>
      join
        .onRef('traffic_months.server_uuid', '=', 'traffic_readings.server_uuid')
        .on('traffic_months.month_start', '=', start),
    )
    .select([
      'traffic_readings.server_uuid',
      'traffic_readings.epoch',
      'traffic_readings.counter',
      'traffic_readings.read_at',
      'traffic_months.bytes',
    ])
    .where(which);
}

const readingColumns = ['server_uuid', 'epoch', 'counter', 'read_at', 'bytes'] as const;

/**
 * The month's readings of the servers `which` names, as one JSON value (db/json-tuples.ts), so a
 * read that shows servers takes them in its own statement (server.repository.ts): one snapshot, and
 * no second statement. Read it with `monthReadingsFrom`.
 */
export function monthReadingsJson(db: Kysely<Database>, start: number, which: ReadingsOf) {
  return jsonTuples(db, monthReadingsQuery(db, start, which), readingColumns);
}

/** The readings of a monthReadingsJson value. */
export const monthReadingsFrom = objectsOf<MonthReading>(readingColumns);

/**
 * Prepared forms for up to 64 machines (server/info, a short list): 1, 2, 4 … 64 uuids, the
 * last one repeated to fill; building and compiling the query each time cost more than running it.
 * Longer lists build theirs.
 */
const preparedSizes = [1, 2, 4, 8, 16, 32, 64];
const preparedReadings = new Map<number, PreparedQuery<[number, ...string[]], MonthReading>>(
  preparedSizes.map((size) => [
    size,
    prepared<[number, ...string[]], MonthReading>(size + 1, (db, start, ...uuids) =>
      monthReadingsQuery(db, start, readingsOfUuids(uuids)),
    ),
  ]),
);

function monthReadingsOf(db: Queryable, start: number, uuids: readonly string[]): Promise<MonthReading[]> {
  const size = preparedSizes.find((candidate) => candidate >= uuids.length);
  const query = size === undefined ? undefined : preparedReadings.get(size);
  if (!query || size === undefined) return monthReadingsQuery(db, start, readingsOfUuids(uuids)).execute();
  const filled = Array.from({ length: size }, (_, i) => uuids[Math.min(i, uuids.length - 1)]!);
  return query.all(db, start, ...filled);
}

export const trafficRepository = {
  lastReading(db: Queryable, serverUuid: string): Promise<LastReading | undefined> {
    return db
      .selectFrom('traffic_readings')
      .select(['epoch', 'counter', 'read_at'])
      .where('server_uuid', '=', serverUuid)
      .executeTakeFirst();
  },

  /**
   * Puts `next` in place of the kept reading only if that is still `last` (or, with none, only if
   * no other instance inserted one meanwhile): whether this call's reading won.
   */
  async replaceReading(
    db: Queryable,
    serverUuid: string,
    last: LastReading | undefined,
    next: LastReading,
  ): Promise<boolean> {
    const claimed = last
      ? await db
          .updateTable('traffic_readings')
          .set(next)
          .where('server_uuid', '=', serverUuid)
          .where('epoch', '=', last.epoch)
          .where('counter', '=', last.counter)
          .where('read_at', '=', last.read_at)
          .executeTakeFirst()
      : await db
          .insertInto('traffic_readings')
          .values({ server_uuid: serverUuid, ...next })
          .onConflict((oc) => oc.column('server_uuid').doNothing())
          .executeTakeFirst();
    const changed = 'numUpdatedRows' in claimed ? claimed.numUpdatedRows : (claimed.numInsertedOrUpdatedRows ?? 0n);
    return Number(changed) > 0;
  },

  /** Adds bytes to the server's month. */
  async addToMonth(db: Queryable, serverUuid: string, monthStart: number, bytes: number): Promise<void> {
    await db
      .insertInto('traffic_months')
      .values({ server_uuid: serverUuid, month_start: monthStart, bytes })
      .onConflict((oc) =>
        oc.columns(['server_uuid', 'month_start']).doUpdateSet((eb) => ({
          bytes: eb('traffic_months.bytes', '+', eb.ref('excluded.bytes')),
        })),
      )
      .execute();
  },

  monthReadings: monthReadingsOf,
};
