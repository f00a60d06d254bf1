// Storage-wide statements of the emulator's reset: empty every table but those kept, and start
// every id sequence again after its table's largest id. They name no table of the domain (each
// table is found in the database's own catalog), so a table a later migration adds is covered.

import { sql } from 'kysely';
import type { DialectName, Queryable, Tx } from './database.ts';

/** Empties every table but `kept`, in the caller's transaction (foreign keys checked at commit). */
export async function emptyTables(trx: Tx, dialect: DialectName, kept: ReadonlySet<string>): Promise<void> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{
      name: string;
    }>`select tablename as name from pg_tables where schemaname = current_schema()`.execute(trx);
    const tables = rows.map((row) => row.name).filter((name) => !kept.has(name));
    if (tables.length)
      await sql`truncate table ${sql.join(tables.map((name) => sql.table(name)))} cascade`.execute(trx);
    return;
  }
  // SQLite: check foreign keys at commit, when every referencing row is gone too.
  await sql`pragma defer_foreign_keys = on`.execute(trx);
  const { rows } = await sql<{
    name: string;
  }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(trx);
  for (const { name } of rows) if (!kept.has(name)) await sql`delete from ${sql.table(name)}`.execute(trx);
}

/** Starts every id sequence again after its table's largest id (1 for an empty table). */
export async function restartIdSequences(db: Queryable, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') {
    // Without its row in sqlite_sequence, an autoincrement table starts again after its largest id.
    const known = await sql<{ name: string }>`select name from sqlite_master where name = 'sqlite_sequence'`.execute(
      db,
    );
    if (known.rows.length) await sql`delete from sqlite_sequence`.execute(db);
    return;
  }
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.columns
    where table_schema = current_schema() and column_name = 'id' and column_default like 'nextval%'`.execute(db);
  for (const { name } of rows)
    await sql`select setval(pg_get_serial_sequence(${name}, 'id'), coalesce(max(id), 0) + 1, false)
      from ${sql.table(name)}`.execute(db);
}
