// The node:sqlite adapter on its own: Kysely queries, bindings, pragmas, transactions.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, sql, type Generated } from 'kysely';
import { NodeSqliteDatabase, nodeSqliteDialect } from './node-sqlite-dialect.ts';

interface Db {
  thing: { id: Generated<number>; name: string; flag: number; amount: number | bigint };
}

function open() {
  const path = join(mkdtempSync(join(tmpdir(), 'nubis-sqlite-')), 'test.db');
  const raw = new NodeSqliteDatabase(path);
  return { raw, db: new Kysely<Db>({ dialect: nodeSqliteDialect(raw) }) };
}

test('opens in WAL mode with foreign keys on', async () => {
  const { raw, db } = open();
  assert.deepEqual({ ...(raw.pragma('journal_mode') as object) }, { journal_mode: 'wal' });
  assert.deepEqual({ ...(raw.pragma('foreign_keys') as object) }, { foreign_keys: 1 });
  await db.destroy();
});

test('runs schema, insert with returning, select, update and delete', async () => {
  const { db } = open();
  await db.schema
    .createTable('thing')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('flag', 'integer', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .execute();
  const inserted = await db
    .insertInto('thing')
    .values({ name: 'a', flag: true as unknown as number, amount: 9_007_199_254 })
    .returning(['id', 'flag'])
    .executeTakeFirstOrThrow();
  assert.deepEqual({ ...inserted }, { id: 1, flag: 1 });
  const result = await db.insertInto('thing').values({ name: 'b', flag: 0, amount: 2 }).executeTakeFirstOrThrow();
  assert.equal(Number(result.insertId), 2);
  const updated = await db.updateTable('thing').set({ name: 'c' }).where('id', '=', 2).executeTakeFirstOrThrow();
  assert.equal(Number(updated.numUpdatedRows), 1);
  const rows = await db.selectFrom('thing').select(['name', 'amount']).orderBy('id').execute();
  assert.deepEqual(
    rows.map((row) => ({ ...row })),
    [
      { name: 'a', amount: 9_007_199_254 },
      { name: 'c', amount: 2 },
    ],
  );
  const sum = await sql<{ total: number }>`select sum(amount) as total from thing`.execute(db);
  assert.equal(sum.rows[0]?.total, 9_007_199_256);
  await db.deleteFrom('thing').where('id', '=', 1).execute();
  assert.equal((await db.selectFrom('thing').selectAll().execute()).length, 1);
  await db.destroy();
});

test('a failed transaction rolls back', async () => {
  const { db } = open();
  await db.schema
    .createTable('thing')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text')
    .addColumn('flag', 'integer')
    .addColumn('amount', 'integer')
    .execute();
  await assert.rejects(
    db.transaction().execute(async (trx) => {
      await trx.insertInto('thing').values({ id: 1, name: 'x', flag: 0, amount: 0 }).execute();
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.equal((await db.selectFrom('thing').selectAll().execute()).length, 0);
  await db.destroy();
});

test('streams rows', async () => {
  const { db } = open();
  await db.schema
    .createTable('thing')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text')
    .addColumn('flag', 'integer')
    .addColumn('amount', 'integer')
    .execute();
  for (let i = 1; i <= 5; i++)
    await db
      .insertInto('thing')
      .values({ id: i, name: `n${i}`, flag: 0, amount: i })
      .execute();
  const seen: number[] = [];
  for await (const row of db.selectFrom('thing').select('id').orderBy('id').stream()) seen.push(row.id);
  assert.deepEqual(seen, [1, 2, 3, 4, 5]);
  await db.destroy();
});

test('rows carry every selected column by name, whatever the alias', async () => {
  const { db } = open();
  const { rows } = await sql<
    Record<string, unknown>
  >`select 1 as a, 'x' as "b c", null as "__proto__", 2 as a2`.execute(db);
  assert.equal(rows.length, 1);
  assert.deepEqual(Object.entries(rows[0]!), [
    ['a', 1],
    ['b c', 'x'],
    ['__proto__', null],
    ['a2', 2],
  ]);
  const plain = await sql<Record<string, unknown>>`select 1 as "it's", 2 as "a""b"`.execute(db);
  assert.deepEqual({ ...plain.rows[0] }, { "it's": 1, 'a"b': 2 });
  await db.destroy();
});
