// Black-box tests of automatic backups: enable and disable, the daily sweep (idempotent, on
// two instances at once), retention, restore, and what happens when the server goes.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, orderServer, serverInfo, SETTLE_SECONDS } from '../../test/support/servers.ts';
import { runBackupSweep } from './backup.sweep.ts';

let nubis: TestInstance;
let alice: TestAccount;
let bob: TestAccount;
const day = 86_400;

before(async () => {
  nubis = await startTestInstance({ SERVERS_LIMIT: '100' });
  [alice, bob] = await Promise.all([createAccount(nubis), createAccount(nubis)]);
});
after(async () => {
  await nubis.close();
});

const sweep = () => runBackupSweep(nubis.running.ctx);

async function backups(serverUuid: string, token = alice.token) {
  const list = await nubis.request('GET', '/v1.3/snapshot/list', { token });
  return list.body.snapshots.filter(
    (s: { type: string; server_id: string }) => s.type === 'backup' && s.server_id === serverUuid,
  );
}

/**
 * Moves the clock to the next 06:00 UTC, so a test's advances stay inside one UTC day (each day
 * passed brings a backup: a test near midnight would see one more).
 */
async function toMorning() {
  const now = Date.parse((await nubis.admin('GET', '/admin/clock')).body.now);
  const sixAm = Math.floor(now / (day * 1000)) * day * 1000 + 6 * 3600 * 1000;
  await nubis.advance(((sixAm > now ? sixAm : sixAm + day * 1000) - now) / 1000);
}

async function setBackups(command: 'enable' | 'disable', serverId: number | string, token = alice.token) {
  return nubis.request('PATCH', `/v1.3/backup/${command}`, { token, body: { server_id: serverId } });
}

describe('backup/enable and backup/disable', () => {
  test("toggle the server's backups and their price; the same state again is a 202 that changes nothing", async () => {
    const s = await deployServer(nubis, alice.token);
    const enabled = await setBackups('enable', s.uuid);
    assert.equal(enabled.status, 202);
    assert.deepEqual(enabled.body, { success: { response: '202 Accepted', reason: '' } });
    const info = await serverInfo(nubis, alice.token, s.id);
    assert.equal(info.info.backup_enabled, true);
    assert.ok(info.info.features.includes('auto_backups'));
    assert.equal(info.price, 6);
    const again = await setBackups('enable', s.id);
    assert.equal(again.status, 202);
    assert.equal((await serverInfo(nubis, alice.token, s.id)).price, 6);

    assert.equal((await setBackups('disable', s.id)).status, 202);
    const off = await serverInfo(nubis, alice.token, s.id);
    assert.equal(off.info.backup_enabled, false);
    assert.equal(off.price, 5);
    assert.equal((await setBackups('disable', s.id)).status, 202);
    assert.equal((await serverInfo(nubis, alice.token, s.id)).price, 5);
  });

  test("refused in a region without backups, for another account's server, and without the permission", async () => {
    const gru = await orderServer(nubis, alice.token, { region: 701 });
    const noBackups = await setBackups('enable', gru.id);
    assert.equal(noBackups.status, 400);
    assert.equal(noBackups.body.errors[0].field, 'server_id');

    const s = await orderServer(nubis, alice.token, {});
    const foreign = await setBackups('enable', s.id, bob.token);
    const missing = await setBackups('enable', 99999999, bob.token);
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, missing.body);

    const restricted = await createAccount(nubis);
    await nubis.admin('PATCH', `/admin/accounts/${restricted.id}`, { permissions: { backups: false } });
    const own = await orderServer(nubis, restricted.token, {});
    assert.equal((await setBackups('enable', own.id, restricted.token)).status, 403);
    const atCreate = await nubis.request('POST', '/v1.3/server/create', {
      token: restricted.token,
      body: { hostname: 'b.example.com', label: 'b', region: 101, image: 1001, plan: 1, auto_backups: true },
    });
    assert.equal(atCreate.status, 403);
  });
});

describe('the daily backup sweep', () => {
  test('makes one backup per server and day, however often and on however many instances it runs', async () => {
    await toMorning();
    const s = await orderServer(nubis, alice.token, { auto_backups: true });
    // The clock's advance runs the sweep when the server finishes provisioning (60 s).
    await nubis.advance(60);
    await sweep();
    await Promise.all([sweep(), sweep()]);
    const first = await backups(s.uuid);
    assert.equal(first.length, 1);
    const [backup] = first;
    assert.equal(backup.type, 'backup');
    assert.equal(backup.region_id, 101);
    assert.equal(backup.size_gb, 4);
    assert.match(backup.name, /^backup \d{4}-\d\d-\d\d$/);
    assert.equal(Date.parse(backup.expires) - Date.parse(backup.created), 7 * day * 1000);
    assert.equal(backup.status, 'processing');
    // A backup is taken beside the running server: it does not hold the server up.
    assert.equal((await serverInfo(nubis, alice.token, s.id)).power, 'running');
    await nubis.advance(8);
    assert.equal((await backups(s.uuid))[0].status, 'completed');

    await nubis.advance(day);
    assert.equal((await backups(s.uuid)).length, 2);
    await sweep();
    await sweep();
    assert.equal((await backups(s.uuid)).length, 2);
  });

  test('waits for a server to finish provisioning, and skips servers with backups off', async () => {
    await toMorning();
    const provisioning = await orderServer(nubis, alice.token, { auto_backups: true });
    const without = await orderServer(nubis, alice.token, {});
    await sweep();
    assert.equal((await backups(provisioning.uuid)).length, 0);
    await nubis.advance(120);
    await sweep();
    assert.equal((await backups(provisioning.uuid)).length, 1);
    assert.equal((await backups(without.uuid)).length, 0);
  });

  test('stops after backup/disable; backups taken stay until they expire after seven days', async () => {
    await toMorning();
    const s = await deployServer(nubis, alice.token, { auto_backups: true });
    await sweep();
    assert.equal((await setBackups('disable', s.id)).status, 202);
    await nubis.advance(day);
    await sweep();
    assert.equal((await backups(s.uuid)).length, 1);
    await nubis.advance(6 * day);
    await sweep();
    assert.equal((await backups(s.uuid)).length, 0);
  });

  test('each backup is an event when taken, when completed and when its retention removes it', async () => {
    await toMorning();
    const s = await deployServer(nubis, bob.token, { auto_backups: true });
    await sweep();
    const [backup] = await backups(s.uuid, bob.token);
    assert.ok(backup, 'a backup was taken');
    await nubis.advance(8 * day);
    await sweep();
    const events = await nubis.admin('GET', `/admin/events?account=${bob.id}&limit=1000`);
    assert.equal(events.status, 200);
    const told = events.body.events.filter((e: { resource: { uuid: string } }) => e.resource.uuid === backup.uuid);
    assert.deepEqual(
      told.map((e: { type: string; resource: { type: string } }) => `${e.resource.type} ${e.type}`),
      ['backup backup.created', 'backup backup.completed', 'backup backup.removed'],
    );
    assert.deepEqual(told[0].data, { name: backup.name, server: s.uuid });
  });
});

describe('backup/restore', () => {
  test('reverts the server to its backup', async () => {
    const s = await deployServer(nubis, alice.token, { auto_backups: true, image: 1011 });
    await sweep();
    await nubis.advance(8);
    const [backup] = await backups(s.uuid);
    await nubis.request('POST', '/v1.3/server/rebuild', {
      token: alice.token,
      body: { server_id: s.id, image_id: 1002 },
    });
    await nubis.advance(90);
    assert.equal((await serverInfo(nubis, alice.token, s.id)).info.img_id, 1002);

    const restored = await nubis.request('PATCH', '/v1.3/backup/restore', {
      token: alice.token,
      body: { backup_id: backup.uuid, server_id: s.uuid },
    });
    assert.equal(restored.status, 202);
    const restoring = await serverInfo(nubis, alice.token, s.id);
    assert.equal(restoring.power, 'restoring');
    assert.equal(restoring.info.img_id, 1011);
    await nubis.advance(8);
    assert.equal((await serverInfo(nubis, alice.token, s.id)).power, 'running');
  });

  test("refuses another server's backup, a snapshot and another account's backup; one still processing is restored once complete", async () => {
    const s = await deployServer(nubis, alice.token, { auto_backups: true });
    const other = await deployServer(nubis, alice.token);
    await sweep();
    const [backup] = await backups(s.uuid);
    const processing = await nubis.request('PATCH', '/v1.3/backup/restore', {
      token: alice.token,
      body: { backup_id: backup.id, server_id: s.id },
    });
    assert.equal(processing.status, 202);
    assert.equal((await serverInfo(nubis, alice.token, s.id)).power, 'restoring');
    await nubis.advance(SETTLE_SECONDS);

    const wrongServer = await nubis.request('PATCH', '/v1.3/backup/restore', {
      token: alice.token,
      body: { backup_id: backup.uuid, server_id: other.id },
    });
    assert.equal(wrongServer.status, 400);
    assert.equal(wrongServer.body.errors[0].field, 'backup_id');

    const snap = await nubis.request('POST', '/v1.3/snapshot/create', {
      token: alice.token,
      body: { name: 'snap', server_id: other.id },
    });
    await nubis.advance(8);
    const notBackup = await nubis.request('PATCH', '/v1.3/backup/restore', {
      token: alice.token,
      body: { backup_id: snap.body.snapshot_id, server_id: other.id },
    });
    assert.equal(notBackup.status, 404);
    assert.match(notBackup.body.errors.reason, /backup not found/);

    const theirs = await deployServer(nubis, bob.token);
    assert.equal(
      (
        await nubis.request('PATCH', '/v1.3/backup/restore', {
          token: bob.token,
          body: { backup_id: backup.uuid, server_id: theirs.id },
        })
      ).status,
      404,
    );
  });
});

describe('removing a server', () => {
  test('takes its backups with it and stops them; its snapshots stay', async () => {
    await toMorning();
    const s = await deployServer(nubis, alice.token, { auto_backups: true });
    await sweep();
    const snap = await nubis.request('POST', '/v1.3/snapshot/create', {
      token: alice.token,
      body: { name: 'keep', server_id: s.id },
    });
    await nubis.advance(8);
    assert.equal((await backups(s.uuid)).length, 1);
    assert.equal((await nubis.request('DELETE', `/v1.3/server/remove/${s.id}`, { token: alice.token })).status, 204);
    await nubis.advance(day);
    await sweep();
    assert.equal((await backups(s.uuid)).length, 0);
    const list = await nubis.request('GET', '/v1.3/snapshot/list', { token: alice.token });
    assert.ok(list.body.snapshots.some((x: { uuid: string }) => x.uuid === snap.body.snapshot_id));
  });
});
