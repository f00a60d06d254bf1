// Prepared queries give the same rows as the Kysely query they were built from, on any parameters.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, type Generated } from 'kysely';
import { NodeSqliteDatabase, nodeSqliteDialect } from './node-sqlite-dialect.ts';
import { answerReadsDirectly, prepared } from './prepared.ts';
import type { Database } from './database.ts';

interface Db {
  thing: { id: Generated<number>; owner: number; name: string };
}

test('re-runs a compiled query with new parameters, keeping literal ones', async () => {
  const db = new Kysely<Db>({
    dialect: nodeSqliteDialect(new NodeSqliteDatabase(join(mkdtempSync(join(tmpdir(), 'nubis-prep-')), 'p.db'))),
  });
  await db.schema
    .createTable('thing')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('owner', 'integer')
    .addColumn('name', 'text')
    .execute();
  for (const [owner, name] of [
    [1, 'a'],
    [1, 'b'],
    [2, 'c'],
    [1, 'd'],
  ] as const)
    await db.insertInto('thing').values({ owner, name }).execute();
  // limit(2) compiles to a literal parameter that must stay in place between the placeholders.
  const byOwner = prepared<[number, string], { name: string }>(2, (k, owner, after) =>
    (k as unknown as Kysely<Db>)
      .selectFrom('thing')
      .select('name')
      .where('owner', '=', owner)
      .where('name', '>', after)
      .orderBy('name')
      .limit(2),
  );
  const asAny = db as unknown as Parameters<typeof byOwner.all>[0];
  assert.deepEqual(
    (await byOwner.all(asAny, 1, '')).map((r) => r.name),
    ['a', 'b'],
  );
  assert.deepEqual(
    (await byOwner.all(asAny, 1, 'a')).map((r) => r.name),
    ['b', 'd'],
  );
  assert.deepEqual(
    (await byOwner.all(asAny, 2, '')).map((r) => r.name),
    ['c'],
  );
  assert.equal(await byOwner.first(asAny, 3, ''), undefined);
  const rename = prepared<[string, number], never>(2, (k, name, id) =>
    (k as unknown as Kysely<Db>).updateTable('thing').set({ name }).where('id', '=', id),
  );
  assert.equal(await rename.run(asAny, 'z', 1), 1);
  assert.equal(await rename.run(asAny, 'z', 99), 0);
  await db.destroy();
});

test('a read answered directly never sees a transaction that has not committed', async () => {
  const database = new NodeSqliteDatabase(join(mkdtempSync(join(tmpdir(), 'nubis-prep-')), 'p.db'));
  const db = new Kysely<Db>({ dialect: nodeSqliteDialect(database) });
  answerReadsDirectly(db as unknown as Kysely<Database>, database);
  await db.schema
    .createTable('thing')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('owner', 'integer')
    .addColumn('name', 'text')
    .execute();
  const names = prepared<[number], { name: string }>(1, (k, owner) =>
    (k as unknown as Kysely<Db>).selectFrom('thing').select('name').where('owner', '=', owner).orderBy('name'),
  );
  const root = db as unknown as Parameters<typeof names.all>[0];
  await db.insertInto('thing').values({ owner: 1, name: 'a' }).execute();
  // Outside any transaction the read is answered at once, with what is committed.
  assert.deepEqual(
    (await names.all(root, 1)).map((r) => r.name),
    ['a'],
  );
  let committed = false;
  let readWhileOpen: Promise<string[]> | undefined;
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('thing').values({ owner: 1, name: 'b' }).execute();
    // Asked for while the transaction is open: it waits its turn and sees the row only once committed.
    readWhileOpen = names.all(root, 1).then((rows) => {
      assert.ok(committed, 'the read was answered before the transaction committed');
      return rows.map((r) => r.name);
    });
    await new Promise((resolve) => setImmediate(resolve));
    committed = true;
  });
  assert.deepEqual(await readWhileOpen, ['a', 'b']);
  await db.destroy();
});
