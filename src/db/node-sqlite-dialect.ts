// Kysely's SqliteDialect speaks to a better-sqlite3-shaped database; this adapts the
// platform's `node:sqlite` to that shape so no native addon is needed.

import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { SqliteDialect } from 'kysely';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { rowFactory } from './row-factory.ts';

type Param = null | number | bigint | string | NodeJS.ArrayBufferView;

/** Converts what Kysely may bind (booleans, Dates, undefined) into what node:sqlite accepts. */
function bindable(value: unknown): Param {
  if (value === undefined || value === null) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string' || ArrayBuffer.isView(value))
    return value as Param;
  return JSON.stringify(value);
}

type RowFactory = (values: unknown[]) => Record<string, unknown>;

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly #statement: StatementSync;
  /**
   * Rows of one shape (row-factory.ts) rather than node:sqlite's dictionary-mode objects; null when
   * they must stay node:sqlite's own (a `__proto__` column would set the prototype in a literal).
   */
  readonly #row: RowFactory | null;
  constructor(statement: StatementSync) {
    this.#statement = statement;
    const columns = statement.columns().map((column) => column.name);
    this.reader = columns.length > 0;
    this.#row = this.reader && !columns.includes('__proto__') ? rowFactory(columns) : null;
    if (this.#row) statement.setReturnArrays(true);
  }
  all(parameters: ReadonlyArray<unknown>): unknown[] {
    const rows = this.#statement.all(...parameters.map(bindable)) as unknown[];
    return this.#row ? (rows as unknown[][]).map(this.#row) : rows;
  }
  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.#statement.run(...parameters.map(bindable));
  }
  *iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    const rows = this.#statement.iterate(...parameters.map(bindable)) as IterableIterator<unknown>;
    if (!this.#row) return yield* rows;
    for (const values of rows as IterableIterator<unknown[]>) yield this.#row(values);
  }
}

/**
 * A node:sqlite database in the shape Kysely expects. Prepared statements are cached by
 * SQL text (bounded), because preparing dominates the cost of a small query.
 */
export class NodeSqliteDatabase implements SqliteDatabase {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, NodeSqliteStatement>();
  readonly #maxCached: number;

  constructor(path: string, maxCached = 500) {
    this.#db = new DatabaseSync(path);
    this.#maxCached = maxCached;
    this.#db.exec('PRAGMA journal_mode = WAL');
    this.#db.exec('PRAGMA synchronous = NORMAL');
    this.#db.exec('PRAGMA foreign_keys = ON');
    this.#db.exec('PRAGMA busy_timeout = 5000');
  }

  prepare(sql: string): SqliteStatement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = new NodeSqliteStatement(this.#db.prepare(sql));
      if (this.#statements.size >= this.#maxCached) {
        const oldest = this.#statements.keys().next().value;
        if (oldest !== undefined) this.#statements.delete(oldest);
      }
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * The rows of a read run at once, or undefined while a transaction is open on the connection
   * (the read then waits for it through Kysely, like every other query: it must not see uncommitted rows).
   */
  readNow(sql: string, parameters: unknown[]): unknown[] | undefined {
    if (this.#db.isTransaction) return undefined;
    return this.prepare(sql).all(parameters);
  }

  /** Runs a script of statements (no parameters, no rows back). */
  exec(script: string): void {
    this.#db.exec(script);
  }

  pragma(name: string): unknown {
    return this.#db.prepare(`PRAGMA ${name}`).get();
  }

  close(): void {
    this.#statements.clear();
    this.#db.close();
  }
}

export function nodeSqliteDialect(database: NodeSqliteDatabase): SqliteDialect {
  return new SqliteDialect({ database });
}
