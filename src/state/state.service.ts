// Saved states for the emulator: the whole state (accounts, tokens as stored, resources,
// billing, mail, settings, the clock's offset) as one versioned document that loads on either
// database. A document from an older Nubis is brought up to date by the migrations it lacks,
// run on a scratch in-memory SQLite copy before it replaces the live state.

import { Kysely, Migrator } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { Conflict, Invalid, NotFound } from '../platform/errors.ts';
import { VirtualClock } from '../platform/clock.ts';
import { migrations } from '../db/migrations/index.ts';
import { NodeSqliteDatabase, nodeSqliteDialect } from '../db/node-sqlite-dialect.ts';
import { readSnapshot } from '../billing/read-snapshot.ts';
import { settingsRepository } from '../settings/settings.repository.ts';
import { stateTables, type StateTable } from './schema-tables.ts';
import { invalidateActors } from '../tokens/token.service.ts';
import { transaction } from '../db/transaction.ts';
import { asDocument, type Rows, type StateDocument, stateDocument } from './state-document.ts';
import { savedStateRepository, stateRepository } from './state.repository.ts';

export { stateFormat, stateVersion, type StateDocument } from './state-document.ts';

export interface StateSummary {
  tables: number;
  rows: number;
  /** Migrations run on the document because it came from an older schema. */
  migrated: string[];
}

export async function exportState(ctx: Platform): Promise<StateDocument> {
  return readSnapshot(ctx, async (trx) => {
    const tables = await stateTables(trx, ctx.dialect);
    return stateDocument({
      migrations: await stateRepository.appliedMigrations(trx),
      exportedAt: ctx.clock.now(),
      clock: { mode: ctx.clock.mode, offsetMs: ctx.clock.offset() },
      tables: await stateRepository.readTables(trx, tables),
    });
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
    await stateRepository.foreignKeys(scratch, false);
    const tables = await stateTables(scratch, 'sqlite');
    checkCells(document, tables);
    for (const table of tables) await stateRepository.insertRows(scratch, table, document.tables[table.name] ?? []);
    await stateRepository.foreignKeys(scratch, true);
    const latest = await new Migrator({
      db: scratch,
      provider: migrations('sqlite'),
      allowUnorderedMigrations: true,
    }).migrateToLatest();
    if (latest.error) throw latest.error;
    return await stateRepository.readTables(scratch, await stateTables(scratch, 'sqlite'));
  } finally {
    await scratch.destroy();
  }
}

/** Replaces the whole state with the document's (on either database); the clock takes its offset when virtual. */
export async function importState(ctx: Platform, input: unknown): Promise<StateSummary> {
  const document = asDocument(input);
  const current = await stateRepository.appliedMigrations(ctx.db);
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
    if (ctx.dialect === 'sqlite') await stateRepository.deferForeignKeys(trx);
    await stateRepository.clear(trx, [...live].reverse());
    for (const table of live) {
      const rows = rowsByTable[table.name] ?? [];
      await stateRepository.insertRows(trx, table, rows);
      total += rows.length;
      if (rows.length) tableCount++;
      if (ctx.dialect === 'postgres' && table.hasSerialId) await stateRepository.continueSerial(trx, table);
    }
    if (ctx.clock instanceof VirtualClock)
      await settingsRepository.set(trx, 'clock_offset_ms', String(document.clock.offset_ms));
    if (ctx.dialect === 'sqlite') {
      const broken = await stateRepository.brokenReference(trx);
      if (broken) throw new Invalid(`tables.${broken.table}`, `a row refers to a missing ${broken.parent} row`);
    }
  });
  if (ctx.clock instanceof VirtualClock) ctx.clock.setOffset(document.clock.offset_ms);
  // Every account and token may differ now: no instance may answer from its actor cache.
  await invalidateActors(ctx, null);
  return { tables: tableCount, rows: total, migrated: missing };
}

/** A named save (the operator API shapes it for the wire). */
export interface SavedState {
  name: string;
  /** Clock ms. */
  createdAt: number;
  /** Characters of the stored document. */
  size: number;
}

export async function saveState(ctx: Platform, name: string): Promise<SavedState> {
  const text = JSON.stringify(await exportState(ctx));
  const createdAt = ctx.clock.now();
  await savedStateRepository.put(ctx.db, name, text, createdAt);
  return { name, createdAt, size: text.length };
}

export async function loadState(ctx: Platform, name: string): Promise<StateSummary> {
  const saved = await savedStateRepository.document(ctx.db, name);
  if (saved === undefined) throw new NotFound('saved state');
  let document: unknown;
  try {
    document = JSON.parse(saved);
  } catch {
    throw new Conflict(`the saved state ${name} is damaged; save it again`);
  }
  return importState(ctx, document);
}

export async function listSavedStates(ctx: Platform): Promise<SavedState[]> {
  const rows = await savedStateRepository.list(ctx.db);
  return rows.map((row) => ({ name: row.name, createdAt: row.created_at, size: Number(row.size) }));
}

export async function removeSavedState(ctx: Platform, name: string): Promise<void> {
  if (!(await savedStateRepository.remove(ctx.db, name))) throw new NotFound('saved state');
}
