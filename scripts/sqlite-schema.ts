// Writes src/db/sqlite-schema.sql: the SQLite database the migrations give, which a database in
// memory starts from (src/db/sqlite-schema.ts). Run after adding a migration; a test says when
// it is due.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openStorage } from '../src/db/connect.ts';
import { schemaScriptFile, schemaScriptOf } from '../src/db/sqlite-schema.ts';

// A file database, not one in memory: that one would start from the script being rewritten.
const dir = mkdtempSync(join(tmpdir(), 'nubis-sqlite-schema-'));
try {
  const storage = await openStorage({
    dataDir: dir,
    databaseUrl: null,
    dbPoolSize: 1,
    dbStatementTimeoutMs: 0,
    dbConnectRetries: 0,
  });
  await migrate(storage);
  writeFileSync(schemaScriptFile, await schemaScriptOf(storage.db));
  await storage.close();
  console.log(`wrote ${schemaScriptFile.pathname}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
