// Saved states (issue 16): a whole-state document exported, then imported over a changed
// state, gives back every list exactly; named saves reset to a fixture; an older document is
// migrated on import and a newer one refused.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, tokenWorks, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, orderServer } from '../../test/support/servers.ts';
import { accountViews, furnish } from '../../test/support/state-views.ts';
import { Kysely, Migrator } from 'kysely';
import type { Database } from '../db/database.ts';
import { migrations } from '../db/migrations/index.ts';
import { NodeSqliteDatabase, nodeSqliteDialect } from '../db/node-sqlite-dialect.ts';
import { stateTables } from './schema-tables.ts';

/** The columns of each table as a Nubis with only these migrations had them (to write an older document). */
async function columnsAt(names: string[]): Promise<Map<string, string[]>> {
  const all = await migrations('sqlite').getMigrations();
  const db = new Kysely<Database>({ dialect: nodeSqliteDialect(new NodeSqliteDatabase(':memory:')) });
  try {
    const provider = { getMigrations: async () => Object.fromEntries(names.map((name) => [name, all[name]])) };
    const { error } = await new Migrator({ db, provider }).migrateToLatest();
    if (error) throw error;
    return new Map((await stateTables(db, 'sqlite')).map((table) => [table.name, table.columns]));
  } finally {
    await db.destroy();
  }
}

let nubis: TestInstance;
let alice: TestAccount;
let bob: TestAccount;

before(async () => {
  nubis = await startTestInstance();
  [alice, bob] = await Promise.all([createAccount(nubis), createAccount(nubis)]);
  await furnish(nubis, alice.token);
  await furnish(nubis, bob.token);
});
after(() => nubis.close());

async function exported() {
  const answer = await nubis.admin('POST', '/admin/state/export');
  assert.equal(answer.status, 200);
  return answer.body;
}

async function views() {
  return { alice: await accountViews(nubis, alice.token), bob: await accountViews(nubis, bob.token) };
}

describe('saved states', () => {
  test('an import over a changed state gives back every list, and what came later is gone', async () => {
    const before = await views();
    const document = await exported();
    assert.equal(document.format, 'nubis-state');
    assert.ok(document.tables.servers.length >= 2);

    await deployServer(nubis, alice.token, { hostname: 'later.example.com' });
    const carol = await createAccount(nubis);
    const bobKey = (await nubis.request('GET', '/v1.3/ssh_key/list', { token: bob.token })).body.ssh_keys[0];
    const removed = await nubis.request('DELETE', `/v1.3/ssh_key/remove/${bobKey.uuid}`, { token: bob.token });
    assert.equal(removed.status, 204);

    const imported = await nubis.admin('POST', '/admin/state/import', document);
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    assert.deepEqual(imported.body.migrated, []);
    assert.deepEqual(await views(), before);
    assert.equal(await tokenWorks(nubis, carol.token), false, 'an account made after the export is gone');
    // Ids keep counting after an import: a new server does not reuse an imported id.
    const next = await deployServer(nubis, alice.token, { hostname: 'after-import.example.com' });
    assert.ok(document.tables.servers.every((row: { id: number }) => row.id < next.id));
  });

  test('a named save resets to a fixture; saves are listed and removed', async () => {
    const fixture = await views();
    const saved = await nubis.admin('POST', '/admin/state/save', { name: 'fixture-1' });
    assert.equal(saved.status, 201);
    assert.equal(saved.body.name, 'fixture-1');
    await orderServer(nubis, bob.token, { hostname: 'scratch.example.com' });
    assert.notDeepEqual(await views(), fixture);
    const loaded = await nubis.admin('POST', '/admin/state/load', { name: 'fixture-1' });
    assert.equal(loaded.status, 200, JSON.stringify(loaded.body));
    assert.deepEqual(await views(), fixture);
    const listed = await nubis.admin('GET', '/admin/state');
    assert.deepEqual(
      listed.body.states.map((state: { name: string }) => state.name),
      ['fixture-1'],
    );
    assert.equal((await nubis.admin('DELETE', '/admin/state/fixture-1')).status, 204);
    assert.equal((await nubis.admin('POST', '/admin/state/load', { name: 'fixture-1' })).status, 404);
  });

  test('a document from an older schema is migrated on import', async () => {
    const before = await views();
    const document = await exported();
    // The document as a Nubis before migration 0005 wrote it: only the tables and columns it had
    // (no reverse-DNS column on addresses, nothing later migrations added).
    const olderMigrations = document.migrations.filter((name: string) => name < '0005');
    const olderColumns = await columnsAt(olderMigrations);
    const tables: Record<string, Record<string, unknown>[]> = {};
    for (const [table, columns] of olderColumns)
      tables[table] = (document.tables[table] ?? []).map((row: Record<string, unknown>) =>
        Object.fromEntries(columns.filter((column) => column in row).map((column) => [column, row[column]])),
      );
    assert.ok(!olderColumns.get('ip_addresses')?.includes('reverse'));
    const older = { ...document, migrations: olderMigrations, tables };
    const imported = await nubis.admin('POST', '/admin/state/import', older);
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    assert.ok(imported.body.migrated.includes('0005_server_addresses'));
    const after = await views();
    // A document from before the traffic meter (0011) carries none of its readings: the month's
    // usage counts again from what the driver reads now, so it may only be lower. Everything
    // else the older document holds comes back as it was.
    const servers = (view: Awaited<ReturnType<typeof views>>) =>
      (view.alice['/v1.3/server/list'] as { servers: { bandwidth: { usage: number } }[] }).servers;
    const usage = (list: { bandwidth: { usage: number } }[]) => list.map((entry) => entry.bandwidth.usage);
    const withoutUsage = (list: { bandwidth: { usage: number } }[]) =>
      list.map((entry) => ({ ...entry, bandwidth: { ...entry.bandwidth, usage: 0 } }));
    assert.deepEqual(withoutUsage(servers(after)), withoutUsage(servers(before)));
    for (const [index, gb] of usage(servers(after)).entries())
      assert.ok(gb <= usage(servers(before))[index], `usage ${gb}`);
    assert.deepEqual(after.bob['/v1.3/floating_ip/list'], before.bob['/v1.3/floating_ip/list']);
  });

  test('a newer or malformed document is refused with the field named, and nothing changes', async () => {
    const before = await views();
    const document = await exported();
    const newer = await nubis.admin('POST', '/admin/state/import', {
      ...document,
      migrations: [...document.migrations, '9999_from_the_future'],
    });
    assert.equal(newer.status, 400);
    assert.equal(newer.body.errors[0].field, 'migrations');
    const badColumn = await nubis.admin('POST', '/admin/state/import', {
      ...document,
      tables: { ...document.tables, accounts: [{ ...document.tables.accounts[0], shoe_size: 44 }] },
    });
    assert.equal(badColumn.status, 400);
    assert.equal(badColumn.body.errors[0].field, 'tables.accounts[0].shoe_size');
    const wrongFormat = await nubis.admin('POST', '/admin/state/import', { ...document, format: 'other' });
    assert.equal(wrongFormat.status, 400);
    assert.deepEqual(await views(), before);
  });
});
