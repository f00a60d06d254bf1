// The lock rule of account-lock.ts, checked where it can drift: every row lock is FOR NO KEY UPDATE,
// except the claims of queued rows that no other row references, which take FOR UPDATE SKIP LOCKED.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { testDb, testStorageEnv } from '../../test/support/instance.ts';
import { migrate } from '../db/connect.ts';

/** The queues claimed FOR UPDATE SKIP LOCKED, by the file that claims them. */
const claims = new Map([
  ['compute/job.repository.ts', 'compute_jobs'],
  ['events/event.repository.ts', 'event_schedule'],
  ['mail/mail.repository.ts', 'mail_outbox'],
  ['reverse-dns/ptr-outbox.repository.ts', 'ptr_outbox'],
  ['snapshots/snapshot.repository.ts', 'snapshots'],
]);

const src = new URL('../', import.meta.url).pathname;

test('FOR UPDATE is taken only by the claims of the queues', () => {
  const takers = readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts'))
    .filter((file) => /forUpdate\(\)|\bfor update\b/i.test(codeOf(file)))
    .sort();
  assert.deepEqual(takers, [...claims.keys()].sort());
});

/** The file without its comments: a comment may name the lock it does not take. */
function codeOf(file: string): string {
  return readFileSync(join(src, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
}

test(`no row references a queue claimed FOR UPDATE, on ${testDb}`, async () => {
  // A foreign key to one of them would make an insert wait for the claim (its FOR KEY SHARE check
  // conflicts with FOR UPDATE): the claim would then have to become FOR NO KEY UPDATE.
  const storage = await testStorageEnv();
  const opened = await storage.open(1);
  try {
    await migrate(opened);
    const referenced =
      opened.dialect === 'postgres'
        ? (
            await sql<{ table: string }>`
              select distinct ccu.table_name as "table"
              from information_schema.referential_constraints rc
              join information_schema.constraint_column_usage ccu
                on ccu.constraint_name = rc.unique_constraint_name and ccu.constraint_schema = rc.unique_constraint_schema
              where rc.constraint_schema = current_schema()`.execute(opened.db)
          ).rows.map((row) => row.table)
        : (
            await sql<{ table: string }>`
              select distinct fk."table" as "table"
              from sqlite_schema t, pragma_foreign_key_list(t.name) fk
              where t.type = 'table'`.execute(opened.db)
          ).rows.map((row) => row.table);
    // The query sees the references there are (accounts and servers are referenced everywhere).
    assert.ok(referenced.includes('accounts') && referenced.includes('servers'), referenced.join(', '));
    for (const table of claims.values()) assert.ok(!referenced.includes(table), `${table} is referenced`);
  } finally {
    await opened.close();
    await storage.cleanup();
  }
});
