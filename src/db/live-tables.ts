// The tables of the live schema as the database itself reports them (its catalog: tables,
// foreign keys, columns), on either database. Storage's own question, asked of no table of the
// domain: the state export (state/schema-tables.ts) picks and orders what it saves from it.

import { sql } from 'kysely';
import type { DialectName, Queryable } from './database.ts';

export interface LiveTable {
  name: string;
  /** Tables this one references (parents), itself left out. */
  references: string[];
  columns: string[];
  /** Columns whose PostgreSQL type is boolean (SQLite keeps 0/1). */
  booleanColumns: string[];
  hasSerialId: boolean;
}

/** Every table of the schema Nubis lives in, in no particular order. */
export async function liveTables(db: Queryable, dialect: DialectName): Promise<LiveTable[]> {
  return dialect === 'postgres' ? postgresTables(db) : sqliteTables(db);
}

async function postgresTables(db: Queryable): Promise<LiveTable[]> {
  const names = await sql<{ name: string }>`
    select tablename as name from pg_tables where schemaname = current_schema()`.execute(db);
  const keys = await sql<{ child: string; parent: string }>`
    select c.relname as child, p.relname as parent from pg_constraint k
    join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
    where k.contype = 'f' and k.connamespace = current_schema()::regnamespace`.execute(db);
  const columns = await sql<{ table_name: string; column_name: string; data_type: string; default: string | null }>`
    select table_name, column_name, data_type, column_default as default from information_schema.columns
    where table_schema = current_schema()`.execute(db);
  return names.rows.map(({ name }) => {
    const own = columns.rows.filter((column) => column.table_name === name);
    return {
      name,
      references: keys.rows.filter((key) => key.child === name && key.parent !== name).map((key) => key.parent),
      columns: own.map((column) => column.column_name),
      booleanColumns: own.filter((column) => column.data_type === 'boolean').map((column) => column.column_name),
      hasSerialId: own.some((column) => column.column_name === 'id' && /nextval/.test(column.default ?? '')),
    };
  });
}

async function sqliteTables(db: Queryable): Promise<LiveTable[]> {
  const names = await sql<{ name: string }>`
    select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db);
  const tables: LiveTable[] = [];
  for (const { name } of names.rows) {
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
  return tables;
}
