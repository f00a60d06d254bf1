// Saved states for the emulator: the whole state (accounts, tokens as stored, resources,
// billing, mail, settings, the clock's offset) as one versioned document that loads on either
// database. A document from an older Nubis is brought up to date by the migrations it lacks,
// run on a scratch in-memory SQLite copy before it replaces the live state.

import { Kysely, Migrator, sql } from 'kysely';
import type { Database, Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { Conflict, Invalid, NotFound } from '../platform/errors.ts';
import { isoSeconds, lastInstantMs, representable, VirtualClock } from '../platform/clock.ts';
import { migrations } from '../db/migrations/index.ts';
import { NodeSqliteDatabase, nodeSqliteDialect } from '../db/node-sqlite-dialect.ts';
import { readSnapshot } from '../billing/read-snapshot.ts';
import { settingsRepository } from '../settings/settings.repository.ts';
import { stateTables, type StateTable } from './schema-tables.ts';
import { invalidateActors } from '../tokens/token.service.ts';
import { transaction } from '../db/transaction.ts';

export const stateFormat = 'nubis-state';
export const stateVersion = 1;

type Cell = string | number | null;
type Rows = Record<string, Cell>[];

export interface StateDocument {
  format: typeof stateFormat;
  version: typeof stateVersion;
  /** The migrations of the schema the rows follow, in the order they ran. */
  migrations: string[];
  exported: string;
  clock: { mode: string; offset_ms: number };
  tables: Record<string, Rows>;
}

export interface StateSummary {
  tables: number;
  rows: number;
  /** Migrations run on the document because it came from an older schema. */
  migrated: string[];
}

async function appliedMigrations(db: Queryable): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((row) => row.name);
}

/** Flags are 0/1 everywhere; PostgreSQL booleans (should a table have one) are exported the same way. */
function portable(row: Record<string, unknown>): Record<string, Cell> {
  const out: Record<string, Cell> = {};
  for (const [column, value] of Object.entries(row))
    out[column] = typeof value === 'boolean' ? (value ? 1 : 0) : (value as Cell);
  return out;
}

async function readTables(db: Queryable, tables: StateTable[]): Promise<Record<string, Rows>> {
  const result: Record<string, Rows> = {};
  for (const table of tables) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)} order by 1`.execute(db);
    result[table.name] = rows.map(portable);
  }
  return result;
}

export async function exportState(ctx: Platform): Promise<StateDocument> {
  return readSnapshot(ctx, async (trx) => {
    const tables = await stateTables(trx, ctx.dialect);
    return {
      format: stateFormat,
      version: stateVersion,
      migrations: await appliedMigrations(trx),
      exported: isoSeconds(ctx.clock.now()),
      clock: { mode: ctx.clock.mode, offset_ms: ctx.clock.offset() },
      tables: await readTables(trx, tables),
    };
  });
}

function checkCells(document: StateDocument, live: StateTable[]): void {
  const byName = new Map(live.map((table) => [table.name, table]));
  for (const [name, rows] of Object.entries(document.tables)) {
    const table = byName.get(name);
    if (!table) throw new Invalid(`tables.${name}`, 'no such table in this Nubis');
    const columns = new Set(table.columns);
    rows.forEach((row, index) => {
      for (const [column, value] of Object.entries(row)) {
        if (!columns.has(column)) throw new Invalid(`tables.${name}[${index}].${column}`, 'no such column');
        if (value !== null && typeof value !== 'string' && typeof value !== 'number')
          throw new Invalid(`tables.${name}[${index}].${column}`, 'must be a string, a number or null');
      }
    });
  }
}

/** Inserts rows in statements of a bounded number of parameters (both databases cap them). */
async function insertRows(db: Queryable, table: StateTable, rows: Rows): Promise<void> {
  if (!rows.length) return;
  const booleans = new Set(table.booleanColumns);
  const prepared = rows.map((row) => {
    const out: Record<string, Cell | boolean> = {};
    for (const [column, value] of Object.entries(row))
      out[column] = booleans.has(column) && typeof value === 'number' ? value !== 0 : value;
    return out;
  });
  const perStatement = Math.max(1, Math.floor(30_000 / Math.max(1, table.columns.length)));
  for (let start = 0; start < prepared.length; start += perStatement) {
    const chunk = prepared.slice(start, start + perStatement);
    await (db as Kysely<Record<string, Record<string, unknown>>>).insertInto(table.name).values(chunk).execute();
  }
}

/** Brings rows of an older schema up to this one: load them into a scratch SQLite at their schema, migrate, read back. */
async function upgrade(document: StateDocument): Promise<Record<string, Rows>> {
  const all = await migrations('sqlite').getMigrations();
  const scratch = new Kysely<Database>({ dialect: nodeSqliteDialect(new NodeSqliteDatabase(':memory:')) });
  try {
    const older = Object.fromEntries(document.migrations.map((name) => [name, all[name]]));
    const atDocument = new Migrator({
      db: scratch,
      provider: { getMigrations: async () => older },
      allowUnorderedMigrations: true,
    });
    const first = await atDocument.migrateToLatest();
    if (first.error) throw first.error;
    await sql`pragma foreign_keys = off`.execute(scratch);
    const tables = await stateTables(scratch, 'sqlite');
    checkCells(document, tables);
    for (const table of tables) await insertRows(scratch, table, document.tables[table.name] ?? []);
    await sql`pragma foreign_keys = on`.execute(scratch);
    const latest = await new Migrator({
      db: scratch,
      provider: migrations('sqlite'),
      allowUnorderedMigrations: true,
    }).migrateToLatest();
    if (latest.error) throw latest.error;
    return await readTables(scratch, await stateTables(scratch, 'sqlite'));
  } finally {
    await scratch.destroy();
  }
}

function asDocument(input: unknown): StateDocument {
  const document = input as Partial<StateDocument> | null;
  if (!document || document.format !== stateFormat) throw new Invalid('format', `must be "${stateFormat}"`);
  if (document.version !== stateVersion)
    throw new Invalid('version', `this Nubis reads version ${stateVersion} documents`);
  // The clock it brings must show times the spec can write (see platform/clock.ts).
  const offset = document.clock?.offset_ms;
  if (typeof offset !== 'number' || !representable(Date.now() + offset))
    throw new Invalid(
      'clock.offset_ms',
      `must put the clock between ${isoSeconds(0)} and ${isoSeconds(lastInstantMs)}`,
    );
  return document as StateDocument;
}

/** Replaces the whole state with the document's (on either database); the clock takes its offset when virtual. */
export async function importState(ctx: Platform, input: unknown): Promise<StateSummary> {
  const document = asDocument(input);
  const current = await appliedMigrations(ctx.db);
  const unknown = document.migrations.filter((name) => !current.includes(name));
  if (unknown.length)
    throw new Invalid('migrations', `made by a newer Nubis: unknown migrations ${unknown.join(', ')}`);
  const missing = current.filter((name) => !document.migrations.includes(name));
  const rowsByTable = missing.length ? await upgrade(document) : document.tables;

  let total = 0;
  let tableCount = 0;
  await transaction(ctx, async (trx) => {
    const live = await stateTables(trx, ctx.dialect);
    if (!missing.length) checkCells(document, live);
    if (ctx.dialect === 'sqlite') await sql`pragma defer_foreign_keys = on`.execute(trx);
    for (const table of [...live].reverse()) await sql`delete from ${sql.table(table.name)}`.execute(trx);
    for (const table of live) {
      const rows = rowsByTable[table.name] ?? [];
      await insertRows(trx, table, rows);
      total += rows.length;
      if (rows.length) tableCount++;
      if (ctx.dialect === 'postgres' && table.hasSerialId)
        await sql`select setval(pg_get_serial_sequence(${table.name}, 'id'), coalesce(max(id), 0) + 1, false)
          from ${sql.table(table.name)}`.execute(trx);
    }
    if (ctx.clock instanceof VirtualClock)
      await settingsRepository.set(trx, 'clock_offset_ms', String(document.clock.offset_ms));
    if (ctx.dialect === 'sqlite') {
      const broken = await sql<{ table: string; parent: string }>`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length) {
        const first = broken.rows[0];
        throw new Invalid(`tables.${first.table}`, `a row refers to a missing ${first.parent} row`);
      }
    }
  });
  if (ctx.clock instanceof VirtualClock) ctx.clock.setOffset(document.clock.offset_ms);
  // Every account and token may differ now: no instance may answer from its actor cache.
  await invalidateActors(ctx, null);
  return { tables: tableCount, rows: total, migrated: missing };
}

export interface SavedState {
  name: string;
  created: string;
  /** Characters of the stored document. */
  size: number;
}

export async function saveState(ctx: Platform, name: string): Promise<SavedState> {
  const text = JSON.stringify(await exportState(ctx));
  const created = ctx.clock.now();
  await ctx.db
    .insertInto('saved_states')
    .values({ name, document: text, created_at: created })
    .onConflict((oc) => oc.column('name').doUpdateSet({ document: text, created_at: created }))
    .execute();
  return { name, created: isoSeconds(created), size: text.length };
}

export async function loadState(ctx: Platform, name: string): Promise<StateSummary> {
  const saved = await ctx.db.selectFrom('saved_states').select('document').where('name', '=', name).executeTakeFirst();
  if (!saved) throw new NotFound('saved state');
  let document: unknown;
  try {
    document = JSON.parse(saved.document);
  } catch {
    throw new Conflict(`the saved state ${name} is damaged; save it again`);
  }
  return importState(ctx, document);
}

export async function listSavedStates(ctx: Platform): Promise<SavedState[]> {
  const rows = await ctx.db
    .selectFrom('saved_states')
    .select(['name', 'created_at', sql<number>`length(document)`.as('size')])
    .orderBy('name')
    .execute();
  return rows.map((row) => ({ name: row.name, created: isoSeconds(row.created_at), size: Number(row.size) }));
}

export async function removeSavedState(ctx: Platform, name: string): Promise<void> {
  const result = await ctx.db.deleteFrom('saved_states').where('name', '=', name).executeTakeFirst();
  if (Number(result.numDeletedRows) !== 1) throw new NotFound('saved state');
}
