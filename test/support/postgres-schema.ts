// A PostgreSQL schema of its own for a test file, a scale-out deployment or a benchmark run: made in
// the database `base` names, reached through a URL whose search_path is it, and dropped with all it
// holds. Tests, deployments and runs then share one PostgreSQL without seeing each other's tables.

import pg from 'pg';

export interface ThrowawaySchema {
  /** `base` with the schema as its search_path. */
  url: string;
  drop(): Promise<void>;
}

async function query(base: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Makes schema `name` (letters, digits and `_`: it is written into the SQL) in `base`'s database. */
export async function throwawaySchema(base: string, name: string): Promise<ThrowawaySchema> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain schema name: ${name}`);
  await query(base, `create schema ${name}`);
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    url: url.toString(),
    drop: () => query(base, `drop schema if exists ${name} cascade`),
  };
}
