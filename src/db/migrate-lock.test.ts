// An instance starting while another holds the migrations' lock waits for it, however long past
// the statement timeout; its requests keep the timeout.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { testDb, testStorageEnv } from '../../test/support/instance.ts';
import { migrate, openStorage } from './connect.ts';

/** The advisory lock Kysely's migrators take on PostgreSQL (its postgres-adapter.js). */
const migrationLock = sql.lit(BigInt('3853314791062309107'));

test('migrations wait for the lock past the statement timeout; requests keep it', {
  skip: testDb === 'postgres' ? false : 'PostgreSQL only: SQLite has no statement timeout and no migration lock',
}, async () => {
  const storage = await testStorageEnv();
  const url = storage.env.DATABASE_URL!;
  const config = { databaseUrl: url, dataDir: storage.env.DATA_DIR!, dbStatementTimeoutMs: 500, dbConnectRetries: 0 };
  // Another instance migrating: it holds the lock for five statement timeouts past the wait's start.
  const other = await openStorage({ ...config, dbPoolSize: 1, dbStatementTimeoutMs: 0 });
  // Named, so that its wait for the lock can be seen (other test files may be migrating too).
  const startingUrl = new URL(url);
  startingUrl.searchParams.set('application_name', `migration-lock-${process.pid}`);
  const starting = await openStorage({ ...config, databaseUrl: startingUrl.href, dbPoolSize: 2 });
  try {
    const held = await other.db.connection().execute(async (connection) => {
      await sql`select pg_advisory_lock(${migrationLock})`.execute(connection);
      const migrating = migrate(starting);
      // Released only once the starting instance is seen waiting on it.
      for (;;) {
        const waiting = await sql<{ count: number }>`
          select count(*)::int as count from pg_stat_activity
          where application_name = ${`migration-lock-${process.pid}`} and wait_event_type = 'Lock'`.execute(connection);
        if ((waiting.rows[0]?.count ?? 0) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      await sql`select pg_advisory_unlock(${migrationLock})`.execute(connection);
      return migrating;
    });
    assert.ok((await held).length > 0, 'the migrations ran once the lock was free');
    // The migrating connection has its timeout back: a request longer than it is cancelled.
    const slow = await Promise.allSettled([0, 1].map(() => sql`select pg_sleep(2)`.execute(starting.db)));
    for (const outcome of slow) {
      assert.equal(outcome.status, 'rejected');
      assert.match(String((outcome as PromiseRejectedResult).reason), /statement timeout/);
    }
  } finally {
    await starting.close();
    await other.close();
    await storage.cleanup();
  }
});
