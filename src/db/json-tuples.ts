// Rows of a subquery as one JSON value, so a hot read can fetch a parent row and its children in
// one statement without repeating the parent once per child (node:sqlite builds every row it
// answers, and each statement costs far more inside a busy server than in a tight loop).

import { PostgresAdapter, sql, type Kysely, type OperationNodeSource, type RawBuilder } from 'kysely';
import type { Database } from './database.ts';
import { rowFactory } from './row-factory.ts';

/**
 * A scalar subquery answering `[[c1, c2, …], …]` for the rows of `from` (a subquery that selects
 * at least `columns`): JSON text on SQLite, parsed by pg. In no particular order (an ordered
 * aggregate costs SQLite a temporary B-tree): select the ordering column too and sort the few
 * tuples in JS. Read it with `tuplesOf`.
 */
export function jsonTuples(
  db: Kysely<Database>,
  from: OperationNodeSource,
  columns: readonly string[],
): RawBuilder<string | unknown[]> {
  const values = sql.join(columns.map((column) => sql.ref(`t.${column}`)));
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql`(select coalesce(json_agg(json_build_array(${values})), '[]'::json) from (${from}) as t)`
    : sql`(select json_group_array(json_array(${values})) from (${from}) as t)`;
}

/**
 * The one row's `columns` (references such as `s.id`) as a jsonTuples value of one tuple, for a
 * statement that reads a parent row itself and its children as jsonTuples beside it.
 */
export function jsonTupleOfRow(db: Kysely<Database>, columns: readonly string[]): RawBuilder<string | unknown[]> {
  const values = sql.join(columns.map((column) => sql.ref(column)));
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql`json_build_array(json_build_array(${values}))`
    : sql`json_array(json_array(${values}))`;
}

/**
 * A parent row's own columns (references such as `s.id`), for a statement that reads jsonTuples
 * beside them: on PostgreSQL as one jsonTupleOfRow value named `as`, since pg sets up a parser for
 * each column of each answer (account/info: 175 → 152 µs of CPU a request); on SQLite as columns,
 * which node:sqlite builds faster than SQLite writes JSON and V8 reads it back (108 against 114).
 * Select them with `.select(...)`; on SQLite the answer's row is then the parent row itself.
 */
export function ownColumns(db: Kysely<Database>, columns: readonly string[], as: string): readonly never[] {
  const selected = db.getExecutor().adapter instanceof PostgresAdapter ? [jsonTupleOfRow(db, columns).as(as)] : columns;
  // The two shapes differ by dialect: the statement's row type is declared by its prepared query.
  return selected as readonly never[];
}

/** The tuples of a jsonTuples value. */
export function tuplesOf<T extends unknown[]>(value: string | unknown[] | null): T[] {
  if (value === null) return [];
  return (typeof value === 'string' ? JSON.parse(value) : value) as T[];
}

/**
 * A decoder of jsonTuples values into objects keyed by `columns` (in the tuples' order), of one
 * shape as node:sqlite rows are (row-factory.ts).
 */
export function objectsOf<R>(columns: readonly string[]): (value: string | unknown[] | null) => R[] {
  const make = rowFactory<R>(columns);
  return (value) => tuplesOf<unknown[]>(value).map(make);
}
