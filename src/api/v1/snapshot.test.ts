// Black-box tests of the legacy snapshot operations (list, create, remove, restore) and backup
// restore, each checked from the other version, with the envelopes and every refusal.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../../test/support/accounts.ts';
import { deployServer, orderServer, serverInfo, SETTLE_SECONDS } from '../../../test/support/servers.ts';
import { crossings, protocol } from '../../../test/support/protocols.ts';
import { runBackupSweep } from '../../snapshots/backup.sweep.ts';
import { assertFieldErrors, assertError } from '../../../test/support/legacy-assertions.ts';

let nubis: TestInstance;
let alice: TestAccount;
let bob: TestAccount;

before(async () => {
  nubis = await startTestInstance({ SERVERS_LIMIT: '100' });
  [alice, bob] = await Promise.all([createAccount(nubis), createAccount(nubis)]);
});
after(async () => {
  await nubis.close();
});

const post = (path: string, form: Record<string, string | number | boolean>, token = alice.token) =>
  nubis.request('POST', `/v1${path}`, { token, form });
const v13Snapshots = async (token = alice.token) =>
  (await nubis.request('GET', '/v1.3/snapshot/list', { token })).body.snapshots as {
    id: number;
    uuid: string;
    type: string;
    name: string;
    server_id: string;
    status: string;
    created: string;
  }[];
async function legacyList(token = alice.token) {
  const list = await nubis.request('GET', '/v1/snapshot/list', { token });
  assert.equal(list.status, 200, JSON.stringify(list.body));
  return list.body;
}

describe('snapshots across versions', () => {
  for (const [made, seen] of crossings) {
    test(`created, restored and removed through ${made}: ${seen} sees each step`, async () => {
      const actor = protocol(nubis, made);
      const viewer = protocol(nubis, seen);
      const source = await deployServer(nubis, alice.token);
      const id = await actor.createSnapshot(alice.token, source.id, `made in ${made}`);
      assert.deepEqual(
        (await viewer.snapshots(alice.token)).find((s) => s.id === id),
        { id, label: `made in ${made}` },
      );
      assert.equal(
        (await viewer.snapshots(bob.token)).some((s) => s.id === id),
        false,
      );
      assert.equal((await serverInfo(nubis, alice.token, source.id)).power, 'snapshotting');
      await nubis.advance(SETTLE_SECONDS);

      const target = await deployServer(nubis, alice.token);
      await actor.restoreSnapshot(alice.token, target.id, id);
      assert.equal((await viewer.servers(alice.token)).find((s) => s.id === target.id)?.power, 'restoring');
      await nubis.advance(SETTLE_SECONDS);
      assert.equal((await viewer.servers(alice.token)).find((s) => s.id === target.id)?.power, 'running');

      await actor.removeSnapshot(alice.token, id);
      assert.equal(
        (await viewer.snapshots(alice.token)).some((s) => s.id === id),
        false,
      );
    });

    test(`a backup restored through ${made} is seen by ${seen}`, async () => {
      const actor = protocol(nubis, made);
      const viewer = protocol(nubis, seen);
      const source = await deployServer(nubis, alice.token, { auto_backups: true });
      await runBackupSweep(nubis.running.ctx);
      const backup = (await v13Snapshots()).find((s) => s.type === 'backup' && s.server_id === source.uuid);
      assert.ok(backup, 'the sweep took a backup');
      await nubis.advance(SETTLE_SECONDS);
      await actor.restoreBackup(alice.token, source.id, backup.id);
      assert.equal((await viewer.servers(alice.token)).find((s) => s.id === source.id)?.power, 'restoring');
      await nubis.advance(SETTLE_SECONDS);
    });
  }

  test('the legacy Snapshot object: exactly ID, label and created, as v1.3 shows them; backups are not listed', async () => {
    const source = await deployServer(nubis, alice.token, { auto_backups: true });
    const created = await nubis.request('POST', '/v1.3/snapshot/create', {
      token: alice.token,
      body: { server_id: source.id, name: 'shape' },
    });
    await runBackupSweep(nubis.running.ctx);
    const all = await v13Snapshots();
    const snapshot = all.find((s) => s.uuid === created.body.snapshot_id)!;
    const backup = all.find((s) => s.type === 'backup' && s.server_id === source.uuid)!;
    assert.ok(backup);

    const list = await legacyList();
    assert.deepEqual(list[String(snapshot.id)], {
      ID: snapshot.id,
      label: 'shape',
      created: snapshot.created.replace(/Z$/, 'z'),
    });
    assert.equal(list[String(backup.id)], undefined, 'backups have BACKUPIDs of their own');
    assert.deepEqual(
      Object.keys(list).sort(),
      all
        .filter((s) => s.type === 'snapshot')
        .map((s) => String(s.id))
        .sort(),
    );
    await nubis.advance(SETTLE_SECONDS);
  });

  test('the envelopes: create 201 with the SNAPSHOTID as message, restore 201, remove 204, backup restore 201; ids may be uuids', async () => {
    const source = await deployServer(nubis, alice.token, { auto_backups: true });
    const created = await post('/snapshot/create', { SUBID: source.uuid, label: 'envelope' });
    assert.equal(created.status, 200);
    assert.deepEqual(Object.keys(created.body).sort(), ['message', 'response_code', 'response_type']);
    assert.equal(created.body.response_type, 'success');
    assert.equal(created.body.response_code, 201);
    assert.match(created.body.message, /^\d+$/);
    const entry = (await v13Snapshots()).find((s) => s.id === Number(created.body.message))!;
    assert.equal(entry.name, 'envelope');
    assert.equal(entry.server_id, source.uuid);
    await nubis.advance(SETTLE_SECONDS);

    const restored = await post('/snapshot/restore', { SUBID: source.id, SNAPSHOTID: entry.uuid });
    assert.equal(restored.status, 200);
    assert.equal(restored.body.response_code, 201);
    await nubis.advance(SETTLE_SECONDS);

    await runBackupSweep(nubis.running.ctx);
    const backup = (await v13Snapshots()).find((s) => s.type === 'backup' && s.server_id === source.uuid)!;
    await nubis.advance(SETTLE_SECONDS);
    const fromBackup = await post('/backup/restore', { SUBID: source.uuid, BACKUPID: backup.uuid });
    assert.equal(fromBackup.status, 200);
    assert.equal(fromBackup.body.response_code, 201);
    await nubis.advance(SETTLE_SECONDS);

    const removed = await post('/snapshot/remove', { SNAPSHOTID: created.body.message });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.response_code, 204);
    assert.equal(
      (await v13Snapshots()).some((s) => s.id === entry.id),
      false,
    );
  });

  test('a snapshot is billed from create to remove through v1 (v1.3 billing.usage)', async () => {
    const fresh = await createAccount(nubis);
    const source = await deployServer(nubis, fresh.token);
    const usage = async () =>
      (await nubis.request('GET', '/v1.3/account/info', { token: fresh.token })).body.billing.usage;
    const withServer = await usage();
    const created = await post('/snapshot/create', { SUBID: source.id, label: 'billed' }, fresh.token);
    assert.ok((await usage()) > withServer);
    await nubis.advance(SETTLE_SECONDS);
    assert.equal((await post('/snapshot/remove', { SNAPSHOTID: created.body.message }, fresh.token)).status, 200);
    assert.equal(await usage(), withServer);
  });
});

describe('snapshot and backup refusals', () => {
  test('bad or missing form fields are named in one 400 envelope', async () => {
    assertFieldErrors(await post('/snapshot/create', {}), ['SUBID', 'label']);
    assertFieldErrors(await post('/snapshot/create', { SUBID: 'web', label: '' }), ['SUBID', 'label']);
    assertFieldErrors(await post('/snapshot/remove', {}), ['SNAPSHOTID']);
    assertFieldErrors(await post('/snapshot/restore', { SNAPSHOTID: 'x' }), ['SNAPSHOTID', 'SUBID']);
    assertFieldErrors(await post('/backup/restore', {}), ['BACKUPID', 'SUBID']);
    // The service's own rule (a blank label), named by the form field.
    const source = await orderServer(nubis, alice.token, {});
    assertFieldErrors(await post('/snapshot/create', { SUBID: source.id, label: '   ' }), ['label']);
  });

  test('restoring onto a server of another location names SNAPSHOTID', async () => {
    const source = await deployServer(nubis, alice.token);
    const created = await post('/snapshot/create', { SUBID: source.id, label: 'nyc' });
    await nubis.advance(SETTLE_SECONDS);
    const elsewhere = await deployServer(nubis, alice.token, { region: 102 });
    assertFieldErrors(await post('/snapshot/restore', { SUBID: elsewhere.id, SNAPSHOTID: created.body.message }), [
      'SNAPSHOTID',
    ]);
  });

  test('a backup restores only onto its own server; BACKUPID must be a backup', async () => {
    const source = await deployServer(nubis, alice.token, { auto_backups: true });
    const other = await deployServer(nubis, alice.token);
    await runBackupSweep(nubis.running.ctx);
    await nubis.advance(SETTLE_SECONDS);
    const backup = (await v13Snapshots()).find((s) => s.type === 'backup' && s.server_id === source.uuid)!;
    assertFieldErrors(await post('/backup/restore', { SUBID: other.id, BACKUPID: backup.id }), ['BACKUPID']);
    const snapshot = await post('/snapshot/create', { SUBID: other.id, label: 'not a backup' });
    await nubis.advance(SETTLE_SECONDS);
    assertError(
      await post('/backup/restore', { SUBID: other.id, BACKUPID: snapshot.body.message }),
      404,
      /backup not found/,
    );
  });

  test('a snapshot of a busy server is taken; a snapshot still being taken can be removed', async () => {
    const source = await deployServer(nubis, alice.token);
    const created = await post('/snapshot/create', { SUBID: source.id, label: 'first' });
    const second = await post('/snapshot/create', { SUBID: source.id, label: 'second' });
    assert.equal(second.status, 200);
    assert.equal(second.body.response_code, 201);
    const removed = await post('/snapshot/remove', { SNAPSHOTID: created.body.message });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.response_code, 204);
    await nubis.advance(SETTLE_SECONDS);
  });

  test("another account's server or snapshot answers exactly like a missing one", async () => {
    const bobs = await deployServer(nubis, bob.token);
    const bobsSnapshot = await post('/snapshot/create', { SUBID: bobs.id, label: 'bob' }, bob.token);
    await nubis.advance(SETTLE_SECONDS);
    const mine = await deployServer(nubis, alice.token);
    const pairs: [Record<string, number>, Record<string, number>, string][] = [
      [{ SUBID: bobs.id }, { SUBID: 99_999_999 }, '/snapshot/create'],
      [{ SNAPSHOTID: Number(bobsSnapshot.body.message) }, { SNAPSHOTID: 99_999_999 }, '/snapshot/remove'],
      [
        { SUBID: mine.id, SNAPSHOTID: Number(bobsSnapshot.body.message) },
        { SUBID: mine.id, SNAPSHOTID: 99_999_999 },
        '/snapshot/restore',
      ],
      [{ SUBID: bobs.id, BACKUPID: 1 }, { SUBID: 99_999_999, BACKUPID: 1 }, '/backup/restore'],
    ];
    for (const [foreign, missing, path] of pairs) {
      const a = await post(path, { label: 'x', ...foreign });
      const b = await post(path, { label: 'x', ...missing });
      assertError(a, 404);
      assert.deepEqual(a.body, b.body, path);
    }
    assert.ok(
      (await v13Snapshots(bob.token)).some((s) => s.id === Number(bobsSnapshot.body.message)),
      'bob keeps his snapshot',
    );
  });

  test('402 envelope when the balance cannot pay for the snapshot; 403 without the snapshots permission', async () => {
    const carol = await createAccount(nubis, { credit: 5 });
    const source = await deployServer(nubis, carol.token);
    assert.equal(
      (await nubis.admin('POST', `/admin/accounts/${carol.id}/credit`, { amount: -10, note: 'drain' })).status,
      201,
    );
    assertError(await post('/snapshot/create', { SUBID: source.id, label: 'poor' }, carol.token), 402, /funds/);

    const dave = await createAccount(nubis);
    const daves = await deployServer(nubis, dave.token);
    assert.equal(
      (await nubis.admin('PATCH', `/admin/accounts/${dave.id}`, { permissions: { snapshots: false } })).status,
      200,
    );
    assertError(
      await post('/snapshot/create', { SUBID: daves.id, label: 'no' }, dave.token),
      403,
      /snapshots permission/,
    );
    assert.equal(
      (await nubis.request('GET', '/v1/snapshot/list', { token: dave.token })).status,
      200,
      'reading needs no permission',
    );
  });
});
