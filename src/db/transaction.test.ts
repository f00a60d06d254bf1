// The transaction helper's retry: a deadlock or serialization failure runs the whole transaction
// again (bounded, then 503); any other error is the caller's at once. On the PostgreSQL run, a
// real deadlock between two transactions locking two rows in opposite orders: PostgreSQL breaks
// it, the loser runs again, and both commit.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { testDb, testStorageEnv } from '../../test/support/instance.ts';
import { createMetrics } from '../platform/metrics.ts';
import { Unavailable } from '../platform/errors.ts';
import type { Db, Tx } from './database.ts';
import { transaction, transactionAttempts } from './transaction.ts';

function quietLog() {
  const lines: { obj: unknown; message?: string }[] = [];
  const log = (obj: object | string, message?: string) => {
    lines.push({ obj, message });
  };
  return { lines, log: { info: log, warn: log, error: log } };
}

/** A database whose transactions fail with `codes`, one per run, then run the work. */
function failingDb(codes: string[]): { db: Db; runs: () => number } {
  let runs = 0;
  const db = {
    transaction: () => ({
      execute: async <T>(work: (trx: Tx) => Promise<T>): Promise<T> => {
        const code = codes[runs++];
        if (code) throw Object.assign(new Error(`failed with ${code}`), { code });
        return work({} as Tx);
      },
    }),
  } as unknown as Db;
  return { db, runs: () => runs };
}

async function conflicts(metrics: ReturnType<typeof createMetrics>) {
  const metric = await metrics.registry.getSingleMetric('nubis_transaction_conflicts_total')!.get();
  return metric.values.map((v) => `${v.labels.code} ${v.labels.outcome} ${v.value}`).sort();
}

test('runs the whole transaction again after a deadlock or a serialization failure', async () => {
  const metrics = createMetrics();
  const { db, runs } = failingDb(['40P01', '40001']);
  const answer = await transaction({ db, log: quietLog().log, metrics }, async () => 'committed');
  assert.equal(answer, 'committed');
  assert.equal(runs(), 3);
  assert.deepEqual(await conflicts(metrics), ['40001 retried 1', '40P01 retried 1']);
});

test('retries nothing else: a unique violation or any other error reaches the caller at once', async () => {
  for (const code of ['23505', '23503', '57014', undefined]) {
    const metrics = createMetrics();
    const { db, runs } = failingDb([code ?? 'x']);
    await assert.rejects(
      transaction({ db, log: quietLog().log, metrics }, async () => 'committed'),
      (error: Error & { code?: string }) => error.code === (code ?? 'x'),
    );
    assert.equal(runs(), 1, `code ${code}`);
  }
});

test(`gives up after ${transactionAttempts} runs with a 503 the client may retry`, async () => {
  const metrics = createMetrics();
  const { db, runs } = failingDb(Array(10).fill('40P01'));
  await assert.rejects(
    transaction({ db, log: quietLog().log, metrics }, async () => 'committed'),
    (error) => error instanceof Unavailable && error.retryAfterSeconds === 1,
  );
  assert.equal(runs(), transactionAttempts);
  assert.deepEqual(await conflicts(metrics), [`40P01 gave_up 1`, `40P01 retried ${transactionAttempts - 1}`]);
});

test(`two transactions locking two rows in opposite orders both commit on ${testDb}`, async () => {
  // PostgreSQL: they deadlock, PostgreSQL breaks it, the loser runs again. SQLite runs one
  // transaction at a time: they cannot meet, and both commit in turn.
  const meet = testDb === 'postgres';
  const storage = await testStorageEnv();
  const opened = await storage.open(4);
  try {
    await sql`create table pair (id integer primary key, runs integer not null)`.execute(opened.db);
    await sql`insert into pair values (1, 0), (2, 0)`.execute(opened.db);
    const metrics = createMetrics();
    const { log } = quietLog();
    // Each takes its first row, waits until the other has taken its own, then asks for the other's.
    let firstRuns = 0;
    const held: (() => void)[] = [];
    const bothHeld = Promise.all([0, 1].map((i) => new Promise<void>((resolve) => (held[i] = resolve))));
    const crossing = (i: number, first: number, second: number) =>
      transaction({ db: opened.db, log, metrics }, async (trx) => {
        await sql`update pair set runs = runs + 1 where id = ${first}`.execute(trx);
        if (meet && firstRuns++ < 2) {
          held[i]!();
          await bothHeld;
        }
        await sql`update pair set runs = runs + 1 where id = ${second}`.execute(trx);
        return i;
      });
    assert.deepEqual(await Promise.all([crossing(0, 1, 2), crossing(1, 2, 1)]), [0, 1]);
    // Each row counts two committed runs: the loser's first run left nothing behind.
    const rows = await sql<{ id: number; runs: number }>`select id, runs from pair order by id`.execute(opened.db);
    assert.deepEqual(rows.rows, [
      { id: 1, runs: 2 },
      { id: 2, runs: 2 },
    ]);
    assert.deepEqual(await conflicts(metrics), meet ? ['40P01 retried 1'] : []);
  } finally {
    await opened.close();
    await storage.cleanup();
  }
});

test('every read-write transaction of the server goes through transaction()', () => {
  const root = new URL('../', import.meta.url).pathname;
  // readSnapshot's read-only REPEATABLE READ transaction writes nothing, so it has nothing to retry.
  const allowed = new Set(['db/transaction.ts', 'billing/read-snapshot.ts']);
  const direct = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && !allowed.has(path))
    .filter((path) => /\.transaction\(\)/.test(readFileSync(join(root, path), 'utf8')));
  assert.deepEqual(direct, [], 'use transaction(ctx, fn) from src/db/transaction.ts');
});
