// Prepared queries for hot paths: a Kysely query is built and compiled once per dialect and
// then re-run with new parameters. Building and compiling costs ~20 µs a call; running the
// SQL ~4 µs — on a request that makes several queries, that is most of its time. On
// PostgreSQL their statements also run as named statements (connect.ts), parsed and planned
// once per connection rather than on every call. A prepared read outside a transaction skips
// Kysely's executor (`answerReadsDirectly`): on SQLite it runs on the statement at once, on
// PostgreSQL through the pool's own query.

import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { Database, Queryable } from './database.ts';

const sentinelPrefix = '\u0000nubis-param-';

/** Runs a read without Kysely when it may (connect.ts); undefined when it must wait its turn. */
export interface DirectReader {
  readNow(sql: string, parameters: unknown[]): unknown[] | Promise<unknown[]> | undefined;
}

const directReaders = new WeakMap<object, DirectReader>();

/**
 * Lets the prepared reads of `db` (the root instance, never a transaction's) skip Kysely's
 * executor: its connection handling, plugins and promises cost more than an SQLite statement
 * itself (synchronous), and a good part of a PostgreSQL one. Only reads outside any transaction
 * take this path, so they see what is committed, exactly as through Kysely.
 */
export function answerReadsDirectly(db: Kysely<Database>, reader: DirectReader): void {
  directReaders.set(db, reader);
}

/** Statement names of the compiled SQL texts: a fixed, small set (one per prepared query and dialect). */
const statementNames = new Map<string, string>();

/** The statement name of a prepared query's SQL text, or undefined for any other SQL. */
export function statementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

/** A stand-in for the i-th parameter while the query is compiled. */
type Placeholder<T> = T;

export interface PreparedQuery<P extends unknown[], R> {
  /** Every row. */
  all(db: Queryable, ...params: P): Promise<R[]>;
  /** The first row, or undefined. */
  first(db: Queryable, ...params: P): Promise<R | undefined>;
  /** Runs a statement that returns no rows; answers the number of affected rows. */
  run(db: Queryable, ...params: P): Promise<number>;
}

/**
 * Declares a prepared query. `build` receives placeholders for the parameters; use each in
 * the query wherever its value goes, as often as it goes there (they are compared by identity
 * after compilation, so a placeholder must be passed as a value, not transformed).
 */
export function prepared<P extends unknown[], R>(
  arity: P['length'],
  build: (db: Kysely<Database>, ...params: { [K in keyof P]: Placeholder<P[K]> }) => Compilable<R>,
): PreparedQuery<P, R> {
  const placeholders = Array.from({ length: arity }, (_, i) => `${sentinelPrefix}${i}`);
  const byDialect = new Map<unknown, { sql: string; slots: (number | { value: unknown })[]; read: boolean }>();

  function compiled(db: Queryable) {
    const adapter = db.getExecutor().adapter.constructor;
    let entry = byDialect.get(adapter);
    if (!entry) {
      const query = build(db as Kysely<Database>, ...(placeholders as unknown as { [K in keyof P]: P[K] })).compile();
      const slots = query.parameters.map((value) =>
        typeof value === 'string' && value.startsWith(sentinelPrefix)
          ? Number(value.slice(sentinelPrefix.length))
          : { value },
      );
      entry = { sql: query.sql, slots, read: /^select\s/i.test(query.sql) };
      byDialect.set(adapter, entry);
      if (!statementNames.has(query.sql)) statementNames.set(query.sql, `nubis_${statementNames.size + 1}`);
    }
    return entry;
  }

  async function execute(db: Queryable, params: unknown[]) {
    const { sql, slots, read } = compiled(db);
    const parameters = slots.map((slot) => (typeof slot === 'number' ? params[slot] : slot.value));
    const rows = read ? directReaders.get(db)?.readNow(sql, parameters) : undefined;
    if (rows !== undefined) return { rows: (await rows) as R[] };
    return db.executeQuery<R>(CompiledQuery.raw(sql, parameters));
  }

  return {
    async all(db, ...params) {
      return (await execute(db, params)).rows;
    },
    async first(db, ...params) {
      return (await execute(db, params)).rows[0];
    },
    async run(db, ...params) {
      const result = await execute(db, params);
      return Number(result.numAffectedRows ?? 0n);
    },
  };
}
