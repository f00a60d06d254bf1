// The tables of the live schema as the database itself reports them, with the foreign keys
// between them, so whole-state export and import include a table a later migration adds
// without being told, and insert parents before children on either database.

import { sql } from 'kysely';
import type { Queryable, DialectName } from '../db/database.ts';

/** Bookkeeping, emulator configuration and the operator audit log: not part of a saved state. */
export const tablesOutsideState = new Set([
  'kysely_migration',
  'kysely_migration_lock',
  'saved_states',
  'fault_rules',
  'operator_audit',
]);

export interface StateTable {
  name: string;
  /** Tables this one references (parents). */
  references: string[];
  columns: string[];
  /** Columns whose PostgreSQL type is boolean (SQLite keeps 0/1). */
  booleanColumns: string[];
  hasSerialId: boolean;
}

export async function stateTables(db: Queryable, dialect: DialectName): Promise<StateTable[]> {
  const tables: StateTable[] = [];
  if (dialect === 'postgres') {
    const names = await sql<{ name: string }>`
      select tablename as name from pg_tables where schemaname = current_schema()`.execute(db);
    const keys = await sql<{ child: string; parent: string }>`
      select c.relname as child, p.relname as parent from pg_constraint k
      join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
      where k.contype = 'f' and k.connamespace = current_schema()::regnamespace`.execute(db);
    const columns = await sql<{ table_name: string; column_name: string; data_type: string; default: string | null }>`
      select table_name, column_name, data_type, column_default as default from information_schema.columns
      where table_schema = current_schema()`.execute(db);
    for (const { name } of names.rows) {
      if (tablesOutsideState.has(name)) continue;
      const own = columns.rows.filter((column) => column.table_name === name);
      tables.push({
        name,
        references: keys.rows.filter((key) => key.child === name && key.parent !== name).map((key) => key.parent),
        columns: own.map((column) => column.column_name),
        booleanColumns: own.filter((column) => column.data_type === 'boolean').map((column) => column.column_name),
        hasSerialId: own.some((column) => column.column_name === 'id' && /nextval/.test(column.default ?? '')),
      });
    }
  } else {
    const names = await sql<{ name: string }>`
      select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db);
    for (const { name } of names.rows) {
      if (tablesOutsideState.has(name)) continue;
      const keys = await sql<{ table: string }>`select * from pragma_foreign_key_list(${name})`.execute(db);
      const columns = await sql<{ name: string }>`select name from pragma_table_info(${name})`.execute(db);
      tables.push({
        name,
        references: keys.rows.map((key) => key.table).filter((parent) => parent !== name),
        columns: columns.rows.map((column) => column.name),
        booleanColumns: [],
        hasSerialId: false,
      });
    }
  }
  return parentsFirst(tables);
}

/** Orders tables so that every table comes after the tables it references. */
function parentsFirst(tables: StateTable[]): StateTable[] {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const ordered: StateTable[] = [];
  const placed = new Set<string>();
  const visit = (table: StateTable, path: Set<string>) => {
    if (placed.has(table.name) || path.has(table.name)) return;
    path.add(table.name);
    for (const parent of table.references) {
      const parentTable = byName.get(parent);
      if (parentTable) visit(parentTable, path);
    }
    placed.add(table.name);
    ordered.push(table);
  };
  for (const table of [...tables].sort((a, b) => a.name.localeCompare(b.name))) visit(table, new Set());
  return ordered;
}
