// The SQLite database the migrations give, as one SQL script (sqlite-schema.sql, written by
// `npm run sqlite-schema`). A database in memory (DATA_DIR=:memory:, @nubis/testing) is always
// new, so it starts from the script in one exec instead of running every migration through
// Kysely's migrator (~30 ms of CPU, a twentieth of a first start in a fresh process). The script
// holds the migrator's own rows: migrations added since it was written are then applied by
// migrate() as usual. src/db/sqlite-schema.test.ts keeps the script equal to the migrations.

import { readFileSync } from 'node:fs';
import { sql, type Kysely } from 'kysely';
import type { Database } from './database.ts';

export const schemaScriptFile = new URL('./sqlite-schema.sql', import.meta.url);

/** The script, or '' when it is missing: the migrations alone then make the schema. */
export function schemaScript(): string {
  try {
    return readFileSync(schemaScriptFile, 'utf8');
  } catch {
    return '';
  }
}

interface SchemaObject {
  type: string;
  name: string;
  sql: string;
}

/** A database's schema (in creation order) and every row of every table. */
export async function databaseContents(
  db: Kysely<Database>,
): Promise<{ objects: SchemaObject[]; rows: Record<string, Record<string, unknown>[]> }> {
  // SQLite's own objects (sqlite_sequence, automatic indexes) come with the tables that need them.
  const { rows: objects } = await sql<SchemaObject>`
    select type, name, sql from sqlite_master
    where sql is not null and name not like 'sqlite_%' order by rowid`.execute(db);
  const rows: Record<string, Record<string, unknown>[]> = {};
  const tables = [...objects.filter((object) => object.type === 'table').map((object) => object.name)];
  const hasSequence = await sql`select 1 from sqlite_master where name = 'sqlite_sequence'`.execute(db);
  if (hasSequence.rows.length) tables.push('sqlite_sequence');
  for (const table of tables) {
    const { rows: found } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    if (found.length) rows[table] = found;
  }
  return { objects, rows };
}

const literal = (value: unknown): string => {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value instanceof Uint8Array) return `X'${Buffer.from(value).toString('hex')}'`;
  return `'${String(value).replaceAll("'", "''")}'`;
};

/** The script that makes a database like `db`: its schema, then its rows. */
export async function schemaScriptOf(db: Kysely<Database>): Promise<string> {
  const { objects, rows } = await databaseContents(db);
  const lines = [
    '-- Written by `npm run sqlite-schema` from the migrations (src/db/sqlite-schema.ts); do not edit.',
    ...objects.map((object) => `${object.sql};`),
  ];
  for (const [table, found] of Object.entries(rows))
    for (const row of found)
      lines.push(
        `INSERT INTO "${table}" (${Object.keys(row)
          .map((column) => `"${column}"`)
          .join(', ')}) VALUES (${Object.values(row).map(literal).join(', ')});`,
      );
  return `${lines.join('\n')}\n`;
}
