// Opens storage: SQLite (node:sqlite, one file under DATA_DIR) by default, PostgreSQL
// when DATABASE_URL is set; runs the migrations with Kysely's Migrator.

import { join } from 'node:path';
import { privateDirectory, privateFile } from '../platform/private-files.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kysely, Migrator, sql, type PostgresPool, type PostgresPoolClient } from 'kysely';
import { SchemaScopedPostgresDialect } from './schema-introspector.ts';
import type { Pool } from 'pg';
import type { Config } from '../config.ts';
import type { Database, DialectName } from './database.ts';
import { migrations } from './migrations/index.ts';
import { NodeSqliteDatabase, nodeSqliteDialect } from './node-sqlite-dialect.ts';
import { answerReadsDirectly, statementName } from './prepared.ts';
import { schemaScript } from './sqlite-schema.ts';

export interface Storage {
  db: Kysely<Database>;
  dialect: DialectName;
  /** True when storage answers a trivial query. */
  ping(): Promise<boolean>;
  /** Connections of the pool: open, idle, callers waiting for one, and the most it opens. */
  poolStats(): PoolStats;
  close(): Promise<void>;
}

/** Whether the database answers a trivial query (readiness). */
async function ping(db: Kysely<Database>): Promise<boolean> {
  await sql`select 1`.execute(db);
  return true;
}

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

type StorageConfig = Pick<
  Config,
  'databaseUrl' | 'dataDir' | 'dbPoolSize' | 'dbStatementTimeoutMs' | 'dbConnectRetries'
>;

export async function openStorage(config: StorageConfig, log: (message: string) => void = () => {}): Promise<Storage> {
  const storage = config.databaseUrl ? await openPostgres(config, config.databaseUrl) : openSqlite(config.dataDir);
  await waitForStorage(storage, config.dbConnectRetries, log);
  return storage;
}

/** DATA_DIR's value that keeps the SQLite database in memory: nothing is written. */
export const inMemory = ':memory:';

/** The SQLite database file of a DATA_DIR. */
export function sqliteFileOf(dataDir: string): string {
  return join(dataDir, 'nubis.db');
}

function openSqlite(dataDir: string): Storage {
  let database: NodeSqliteDatabase;
  if (dataDir === inMemory) {
    database = new NodeSqliteDatabase(inMemory);
    // Always a new database: it starts from the migrations' result (sqlite-schema.ts).
    database.exec(schemaScript());
  } else {
    // The file is made 0600 before SQLite opens it: its journal files take the same mode.
    privateDirectory(dataDir);
    privateFile(sqliteFileOf(dataDir));
    database = new NodeSqliteDatabase(sqliteFileOf(dataDir));
    privateDirectory(dataDir);
  }
  const db = new Kysely<Database>({ dialect: nodeSqliteDialect(database) });
  answerReadsDirectly(db, database);
  return {
    db,
    dialect: 'sqlite',
    ping: () => ping(db),
    // One connection, opened with the file.
    poolStats: () => ({ total: 1, idle: 1, waiting: 0, max: 1 }),
    close: () => db.destroy(),
  };
}

async function openPostgres(config: StorageConfig, connectionString: string): Promise<Storage> {
  // Loaded only when configured: an embedded (SQLite) start should not pay for the driver.
  const { default: pg } = await import('pg');
  // int8 (counts, sums, bigint columns) and numeric (sum of bigint) arrive as strings from pg;
  // every such value here is an integer of micro-dollars or milliseconds, far below 2^53.
  pg.types.setTypeParser(20, (value) => Number(value));
  pg.types.setTypeParser(1700, (value) => Number(value));
  const pool = new pg.Pool({
    connectionString,
    max: config.dbPoolSize,
    statement_timeout: config.dbStatementTimeoutMs || undefined,
    connectionTimeoutMillis: 5_000,
    // Prepared queries (prepared.ts) are keyed reads and writes whose best plan does not depend on
    // the values. Left to choose, PostgreSQL plans a named statement anew on each of its first five
    // runs, and on every run when a plan for the values looks cheaper than one for any values:
    // account/info's statement was planned on every request (~0.2 ms of PostgreSQL's CPU each,
    // twice what running it costs). Unnamed statements are planned per run whatever this says.
    // A server too old to know the setting keeps its own choice.
    onConnect: (client) =>
      client.query('set plan_cache_mode = force_generic_plan').then(
        () => undefined,
        () => undefined,
      ),
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => {});
  // A client whose connection dies while checked out emits 'error' with no listener, which
  // would end the process; the query under way fails on its own (→ 503) and the pool drops
  // the broken client on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({
    dialect: new SchemaScopedPostgresDialect({ pool: namingPreparedStatements(pool) }),
  });
  // The pool is the root instance's: a transaction runs on a connection of its own, never on these.
  answerReadsDirectly(db, {
    readNow: (text, values) => pool.query({ name: statementName(text), text, values }).then((result) => result.rows),
  });
  return {
    db,
    dialect: 'postgres',
    ping: () => ping(db),
    poolStats: () => ({
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: config.dbPoolSize,
    }),
    close: () => db.destroy(),
  };
}

/**
 * The pool as Kysely sees it, running the statements of prepared queries (prepared.ts) as named
 * statements: PostgreSQL then parses and plans each once per connection, not on every call, which
 * was most of its work for a create. Only those: every SQL text named stays prepared on the
 * connection for its lifetime, and theirs are a fixed, small set.
 */
function namingPreparedStatements(pool: Pool): PostgresPool {
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      return {
        query: ((text: string, values: unknown[]) => {
          const name = statementName(text);
          return name ? client.query({ name, text, values }) : client.query(text, values);
        }) as unknown as PostgresPoolClient['query'],
        release: (...args: Parameters<typeof client.release>) => client.release(...args),
      };
    },
    end: () => pool.end(),
  };
}

async function waitForStorage(storage: Storage, retries: number, log: (message: string) => void): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await storage.ping();
      return;
    } catch (error) {
      if (attempt >= retries) {
        await storage.close().catch(() => {});
        throw new Error(`storage unreachable after ${attempt + 1} attempts: ${(error as Error).message}`);
      }
      log(`storage not reachable yet (${(error as Error).message}); retrying`);
      await sleep(1_000);
    }
  }
}

export async function migrate(storage: Storage): Promise<string[]> {
  // Kysely looks for its migration tables in every schema it can see; pin them to ours, or a
  // second deployment (or test) in another schema of the same database would find the first's.
  const migrationTableSchema =
    storage.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(storage.db)).rows[0]?.schema
      : undefined;
  // The common start: every migration applied already. One read says so, without the migrator's
  // lock table, lock and transaction (a good part of a cold start on an existing database).
  if (await allApplied(storage, migrationTableSchema)) return [];
  // Migrations are independent additions (each its own tables or columns), so one written later but
  // numbered earlier still applies to a database that already has later ones.
  const { error, results } = await untimed(storage, (db) =>
    new Migrator({
      db,
      provider: migrations(storage.dialect),
      migrationTableSchema,
      allowUnorderedMigrations: true,
    }).migrateToLatest(),
  );
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Runs `work` on one connection with no statement timeout (PostgreSQL): the migrations are not
 * requests. Kysely's migrators share one lock across the database, so an instance starting while
 * another migrates waits its turn, and a migration may rebuild a large table; under
 * DB_STATEMENT_TIMEOUT_MS the wait was cancelled and the start failed ("canceling statement due
 * to statement timeout": three test servers starting at once on a busy machine). The connection
 * goes back to the pool with the timeout it was opened with.
 */
async function untimed<T>(storage: Storage, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  if (storage.dialect !== 'postgres') return work(storage.db);
  return storage.db.connection().execute(async (db) => {
    await sql`set statement_timeout = 0`.execute(db);
    try {
      return await work(db);
    } finally {
      await sql`reset statement_timeout`.execute(db);
    }
  });
}

/** Whether the database has every migration of this build applied (false when it cannot tell). */
async function allApplied(storage: Storage, schema: string | undefined): Promise<boolean> {
  const known = Object.keys(await migrations(storage.dialect).getMigrations());
  const table = schema ? sql.id(schema, 'kysely_migration') : sql.id('kysely_migration');
  try {
    const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(storage.db);
    const applied = new Set(rows.map((row) => row.name));
    return known.every((name) => applied.has(name));
  } catch {
    return false;
  }
}
