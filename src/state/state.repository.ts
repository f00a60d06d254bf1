// Queries over every table of the state at once (read, clear, refill, renumber), the schema's
// applied migrations and foreign-key checks, and the named saves. Table names come from the
// live schema (schema-tables.ts), never from a request.

import { type Kysely, sql } from 'kysely';
import type { Queryable, Tx } from '../db/database.ts';
import { batches, maxBoundValues } from '../db/batches.ts';
import type { StateTable } from './schema-tables.ts';
import type { Cell, Rows } from './state-document.ts';

/** Flags are 0/1 everywhere; PostgreSQL booleans (should a table have one) are exported the same way. */
function portable(row: Record<string, unknown>): Record<string, Cell> {
  const out: Record<string, Cell> = {};
  for (const [column, value] of Object.entries(row))
    out[column] = typeof value === 'boolean' ? (value ? 1 : 0) : (value as Cell);
  return out;
}

export const stateRepository = {
  async appliedMigrations(db: Queryable): Promise<string[]> {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    return rows.map((row) => row.name);
  },

  async readTables(db: Queryable, tables: StateTable[]): Promise<Record<string, Rows>> {
    const result: Record<string, Rows> = {};
    for (const table of tables) {
      const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)} order by 1`.execute(
        db,
      );
      result[table.name] = rows.map(portable);
    }
    return result;
  },

  /** Inserts rows in statements of a bounded number of parameters (both databases cap them). */
  async insertRows(db: Queryable, table: StateTable, rows: Rows): Promise<void> {
    if (!rows.length) return;
    const booleans = new Set(table.booleanColumns);
    const prepared = rows.map((row) => {
      const out: Record<string, Cell | boolean> = {};
      for (const [column, value] of Object.entries(row))
        out[column] = booleans.has(column) && typeof value === 'number' ? value !== 0 : value;
      return out;
    });
    const perStatement = Math.max(1, Math.floor(maxBoundValues / Math.max(1, table.columns.length)));
    for (const batch of batches(prepared, perStatement))
      await (db as Kysely<Record<string, Record<string, unknown>>>).insertInto(table.name).values(batch).execute();
  },

  /** Empties the tables, in the order given. */
  async clear(trx: Tx, tables: StateTable[]): Promise<void> {
    for (const table of tables) await sql`delete from ${sql.table(table.name)}`.execute(trx);
  },

  /** PostgreSQL: the table's id sequence continues after its largest id. */
  async continueSerial(trx: Tx, table: StateTable): Promise<void> {
    await sql`select setval(pg_get_serial_sequence(${table.name}, 'id'), coalesce(max(id), 0) + 1, false)
          from ${sql.table(table.name)}`.execute(trx);
  },

  /** SQLite: foreign keys on or off for the connection (outside a transaction). */
  async foreignKeys(db: Queryable, on: boolean): Promise<void> {
    await (on ? sql`pragma foreign_keys = on` : sql`pragma foreign_keys = off`).execute(db);
  },

  /** SQLite: foreign keys checked at the commit, not at each statement. */
  async deferForeignKeys(trx: Tx): Promise<void> {
    await sql`pragma defer_foreign_keys = on`.execute(trx);
  },

  /** SQLite: the first row that refers to a missing one, if any. */
  async brokenReference(trx: Tx): Promise<{ table: string; parent: string } | undefined> {
    const broken = await sql<{ table: string; parent: string }>`pragma foreign_key_check`.execute(trx);
    return broken.rows[0];
  },
};

export const savedStateRepository = {
  async put(db: Queryable, name: string, document: string, createdAt: number): Promise<void> {
    await db
      .insertInto('saved_states')
      .values({ name, document, created_at: createdAt })
      .onConflict((oc) => oc.column('name').doUpdateSet({ document, created_at: createdAt }))
      .execute();
  },

  async document(db: Queryable, name: string): Promise<string | undefined> {
    const saved = await db.selectFrom('saved_states').select('document').where('name', '=', name).executeTakeFirst();
    return saved?.document;
  },

  /** By name, with the size of each document in characters. */
  list(db: Queryable) {
    return db
      .selectFrom('saved_states')
      .select(['name', 'created_at', sql<number>`length(document)`.as('size')])
      .orderBy('name')
      .execute();
  },

  /** Answers whether there was such a save. */
  async remove(db: Queryable, name: string): Promise<boolean> {
    const result = await db.deleteFrom('saved_states').where('name', '=', name).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  },
};
