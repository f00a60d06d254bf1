// A database in memory starts from sqlite-schema.sql instead of the migrations: it must be the
// database the migrations make (a file database runs them), schema and rows alike.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { inMemory, migrate, openStorage } from './connect.ts';
import { databaseContents } from './sqlite-schema.ts';

const storageConfig = { databaseUrl: null, dbPoolSize: 1, dbStatementTimeoutMs: 0, dbConnectRetries: 0 };

/** What a database holds, without the instants the migrator recorded (they differ run to run). */
async function opened(dataDir: string) {
  const storage = await openStorage({ ...storageConfig, dataDir });
  try {
    const applied = await migrate(storage);
    const { objects, rows } = await databaseContents(storage.db);
    const migrations = rows.kysely_migration?.map((row) => row.name);
    delete rows.kysely_migration;
    return { applied, objects, rows, migrations };
  } finally {
    await storage.close();
  }
}

test('a database in memory is the one the migrations make', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nubis-sqlite-schema-test-'));
  try {
    const migrated = await opened(dir);
    const memory = await opened(inMemory);
    assert.ok(migrated.applied.length > 0 && migrated.objects.length > 0);
    assert.deepEqual(
      memory.applied,
      [],
      'src/db/sqlite-schema.sql is behind the migrations (they were applied after it): run `npm run sqlite-schema`',
    );
    assert.deepEqual(memory.objects, migrated.objects);
    assert.deepEqual(memory.rows, migrated.rows);
    assert.deepEqual(memory.migrations, migrated.migrations);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
