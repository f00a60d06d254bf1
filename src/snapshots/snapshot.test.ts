// Black-box tests of snapshots: create (processing, then completed, with the server busy
// meanwhile), list, restore, remove, billing, and servers created from a snapshot.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, orderServer, serverInfo, standardServer } from '../../test/support/servers.ts';

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

async function snapshot(serverId: number | string, name = 'before upgrade', token = alice.token) {
  return nubis.request('POST', '/v1.3/snapshot/create', { token, body: { name, server_id: serverId } });
}

async function listed(uuid: string, token = alice.token) {
  const list = await nubis.request('GET', '/v1.3/snapshot/list', { token });
  assert.equal(list.status, 200);
  return list.body.snapshots.find((s: { uuid: string }) => s.uuid === uuid);
}

/** A completed snapshot of a fresh server (Ubuntu: 4 GB, taken in 8 s at the default timings). */
async function completedSnapshot(overrides: Record<string, unknown> = {}) {
  const s = await deployServer(nubis, alice.token, overrides);
  const created = await snapshot(s.id);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await nubis.advance(120);
  return { server: s, uuid: created.body.snapshot_id as string };
}

/**
 * A server of its own whose snapshots take 10 minutes per GB and whose provisioning takes 20
 * minutes, for the tests that look at a transition just before it ends: the clock is real time
 * plus an offset, so at the default timings (2 s per GB) the second left between the test's
 * advance and its look can run out on a loaded machine. Here only the test's advances end them.
 */
const slowTimings = { perGb: 600, provision: 1200 };
async function withSlowInstance(run: (slow: TestInstance, owner: TestAccount) => Promise<void>): Promise<void> {
  const slow = await startTestInstance({
    SIM_SNAPSHOT_SECONDS_PER_GB: String(slowTimings.perGb),
    SIM_PROVISION_SECONDS: String(slowTimings.provision),
  });
  try {
    await run(slow, await createAccount(slow));
  } finally {
    await slow.close();
  }
}

describe('snapshot/create and snapshot/list', () => {
  test('201 with the snapshot uuid; processing while the server shows snapshotting, then completed', async () => {
    const s = await deployServer(nubis, alice.token);
    const created = await snapshot(s.uuid, 'nightly');
    assert.equal(created.status, 201);
    assert.match(created.body.snapshot_id, /^[0-9a-f-]{36}$/);
    assert.equal(created.body.uuid, created.body.snapshot_id);

    const entry = await listed(created.body.snapshot_id);
    assert.deepEqual(Object.keys(entry).sort(), [
      'created',
      'expires',
      'id',
      'name',
      'region_id',
      'server_id',
      'size_gb',
      'status',
      'type',
      'uuid',
    ]);
    assert.equal(typeof entry.id, 'number');
    assert.equal(entry.region_id, 101);
    assert.equal(entry.type, 'snapshot');
    assert.equal(entry.name, 'nightly');
    assert.equal(entry.server_id, s.uuid);
    assert.equal(entry.expires, null);
    assert.equal(entry.status, 'processing');
    assert.equal(entry.size_gb, 4);
    assert.match(entry.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    assert.equal((await serverInfo(nubis, alice.token, s.id)).power, 'snapshotting');
    // A second snapshot is taken too (every action supersedes the transition under way).
    const second = await snapshot(s.id, 'second');
    assert.equal(second.status, 201);

    await nubis.advance(8);
    assert.equal((await listed(created.body.snapshot_id)).status, 'completed');
    assert.equal((await listed(second.body.snapshot_id)).status, 'completed');
    assert.equal((await serverInfo(nubis, alice.token, s.id)).power, 'running');
  });

  test("a larger disk image takes longer: a Windows server's snapshot", async () => {
    await withSlowInstance(async (slow, owner) => {
      const s = await orderServer(slow, owner.token, { image: 1101, plan: 3 });
      await slow.advance(slowTimings.provision);
      const created = await slow.request('POST', '/v1.3/snapshot/create', {
        token: owner.token,
        body: { name: 'windows', server_id: s.id },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const status = async () =>
        (await slow.request('GET', '/v1.3/snapshot/list', { token: owner.token })).body.snapshots.find(
          (x: { uuid: string }) => x.uuid === created.body.snapshot_id,
        );
      assert.equal((await status()).size_gb, 16);
      // Still processing when 15 GB would have been copied, completed at 16.
      await slow.advance(15 * slowTimings.perGb);
      assert.equal((await status()).status, 'processing');
      await slow.advance(slowTimings.perGb);
      assert.equal((await status()).status, 'completed');
    });
  });

  test('a stopped server can be snapshotted and stays stopped', async () => {
    const s = await deployServer(nubis, alice.token);
    await nubis.request('PATCH', '/v1.3/server/stop', { token: alice.token, body: { server_id: s.id } });
    await nubis.advance(5);
    assert.equal((await snapshot(s.id)).status, 201);
    await nubis.advance(8);
    assert.equal((await serverInfo(nubis, alice.token, s.id)).power, 'stopped');
  });

  test("refusals: bad name 400, another account's server 404, no permission 403 (a provisioning server is snapshotted)", async () => {
    const provisioning = await orderServer(nubis, alice.token, {});
    const early = await snapshot(provisioning.id);
    assert.equal(early.status, 201);
    assert.equal((await serverInfo(nubis, alice.token, provisioning.id)).power, 'snapshotting');

    const s = await deployServer(nubis, alice.token);
    const unnamed = await snapshot(s.id, '   ');
    assert.equal(unnamed.status, 400);
    assert.equal(unnamed.body.errors[0].field, 'name');
    const missing = await nubis.request('POST', '/v1.3/snapshot/create', {
      token: alice.token,
      body: { server_id: s.id },
    });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.errors[0].field, 'name');

    const foreign = await snapshot(s.id, 'theirs', bob.token);
    const nothing = await snapshot(99999999, 'theirs', bob.token);
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, nothing.body);

    const restricted = await createAccount(nubis);
    await nubis.admin('PATCH', `/admin/accounts/${restricted.id}`, { permissions: { snapshots: false } });
    const own = await deployServer(nubis, restricted.token);
    const denied = await snapshot(own.id, 'no', restricted.token);
    assert.equal(denied.status, 403);
    assert.match(denied.body.errors.reason, /snapshots permission/);
  });

  test("402 when the balance cannot cover the snapshot's first hour", async () => {
    const poor = await createAccount(nubis, { credit: '0.007' });
    const s = await deployServer(nubis, poor.token);
    await nubis.admin('POST', `/admin/accounts/${poor.id}/credit`, { amount: '-0.0069', note: 'spent' });
    const result = await snapshot(s.id, 'cannot pay', poor.token);
    assert.equal(result.status, 402);
    assert.match(result.body.errors.reason, /not enough funds/);
    assert.deepEqual((await nubis.request('GET', '/v1.3/snapshot/list', { token: poor.token })).body.snapshots, []);
  });

  test('is billed per GB while it exists', async () => {
    const carol = await createAccount(nubis);
    const s = await deployServer(nubis, carol.token);
    const usage = async () =>
      (await nubis.request('GET', '/v1.3/account/info', { token: carol.token })).body.billing.usage as number;
    const before = await usage();
    const created = await snapshot(s.id, 'billed', carol.token);
    await nubis.advance(10);
    // 4 GB at $0.05 per GB and month: $0.20 a month, $0.000274 an hour.
    assert.equal(Math.round(((await usage()) - before) * 1e6), 274);
    assert.equal(
      (await nubis.request('DELETE', `/v1.3/snapshot/remove/${created.body.snapshot_id}`, { token: carol.token }))
        .status,
      204,
    );
    assert.equal(await usage(), before);
  });

  test('each account lists only its own', async () => {
    const { uuid } = await completedSnapshot();
    assert.ok(await listed(uuid));
    assert.equal(await listed(uuid, bob.token), undefined);
  });
});

describe('snapshot/restore', () => {
  test("reverts the server to the snapshot's image state: restoring, then running", async () => {
    const { server: s, uuid } = await completedSnapshot();
    assert.equal(
      (
        await nubis.request('POST', '/v1.3/server/rebuild', {
          token: alice.token,
          body: { server_id: s.id, image_id: 1011 },
        })
      ).status,
      202,
    );
    await nubis.advance(90);
    assert.equal((await serverInfo(nubis, alice.token, s.id)).info.img_id, 1011);

    const restored = await nubis.request('PATCH', '/v1.3/snapshot/restore', {
      token: alice.token,
      body: { snapshot_id: uuid, server_id: s.uuid },
    });
    assert.equal(restored.status, 202);
    assert.deepEqual(restored.body, { success: { response: '202 Accepted', reason: '' } });
    const restoring = await serverInfo(nubis, alice.token, s.id);
    assert.equal(restoring.power, 'restoring');
    assert.equal(restoring.info.img_id, 1001);
    await nubis.advance(8);
    assert.equal((await serverInfo(nubis, alice.token, s.id)).power, 'running');
  });

  test('restores onto another server of the same region, by integer ids too', async () => {
    const { uuid } = await completedSnapshot();
    const target = await deployServer(nubis, alice.token, { image: 1041 });
    const entry = await listed(uuid);
    assert.equal(
      (
        await nubis.request('PATCH', '/v1.3/snapshot/restore', {
          token: alice.token,
          body: { snapshot_id: entry.id, server_id: target.id },
        })
      ).status,
      202,
    );
    assert.equal((await serverInfo(nubis, alice.token, target.id)).info.img_id, 1001);
  });

  test('refuses another region and a disk too small; a snapshot still processing and a busy server are accepted', async () => {
    const { uuid } = await completedSnapshot();
    const elsewhere = await deployServer(nubis, alice.token, { region: 201 });
    const wrongRegion = await nubis.request('PATCH', '/v1.3/snapshot/restore', {
      token: alice.token,
      body: { snapshot_id: uuid, server_id: elsewhere.id },
    });
    assert.equal(wrongRegion.status, 400);
    assert.equal(wrongRegion.body.errors[0].field, 'snapshot_id');
    assert.match(wrongRegion.body.errors[0].reason, /region 101/);

    const windows = await completedSnapshot({ image: 1101, plan: 3 });
    const small = await deployServer(nubis, alice.token);
    const tooSmall = await nubis.request('PATCH', '/v1.3/snapshot/restore', {
      token: alice.token,
      body: { snapshot_id: windows.uuid, server_id: small.id },
    });
    assert.equal(tooSmall.status, 400);
    assert.match(tooSmall.body.errors[0].reason, /at least 40 GB/);

    const s = await deployServer(nubis, alice.token);
    const fresh = await snapshot(s.id);
    const processing = await nubis.request('PATCH', '/v1.3/snapshot/restore', {
      token: alice.token,
      body: { snapshot_id: fresh.body.snapshot_id, server_id: small.id },
    });
    // Still processing: accepted, restored once the snapshot completes; the server being snapshotted is restored too.
    assert.equal(processing.status, 202);
    assert.equal((await serverInfo(nubis, alice.token, small.id)).power, 'restoring');
    const busy = await nubis.request('PATCH', '/v1.3/snapshot/restore', {
      token: alice.token,
      body: { snapshot_id: uuid, server_id: s.id },
    });
    assert.equal(busy.status, 202);
    assert.equal((await serverInfo(nubis, alice.token, s.id)).power, 'restoring');
  });

  test("another account's snapshot or server is a 404", async () => {
    const { server: s, uuid } = await completedSnapshot();
    const theirs = await deployServer(nubis, bob.token);
    assert.equal(
      (
        await nubis.request('PATCH', '/v1.3/snapshot/restore', {
          token: bob.token,
          body: { snapshot_id: uuid, server_id: theirs.id },
        })
      ).status,
      404,
    );
    assert.equal(
      (
        await nubis.request('PATCH', '/v1.3/snapshot/restore', {
          token: alice.token,
          body: { snapshot_id: uuid, server_id: theirs.id },
        })
      ).status,
      404,
    );
    assert.equal(
      (
        await nubis.request('PATCH', '/v1.3/snapshot/restore', {
          token: bob.token,
          body: { snapshot_id: uuid, server_id: s.id },
        })
      ).status,
      404,
    );
  });
});

describe('snapshot/remove', () => {
  test('204 by uuid or id (one still processing too), and gone; another account gets 404', async () => {
    const s = await deployServer(nubis, alice.token);
    const abandoned = await snapshot(s.id, 'abandoned');
    const early = await nubis.request('DELETE', `/v1.3/snapshot/remove/${abandoned.body.snapshot_id}`, {
      token: alice.token,
    });
    assert.equal(early.status, 204);
    assert.equal(await listed(abandoned.body.snapshot_id), undefined);
    const created = await snapshot(s.id);
    await nubis.advance(8);
    assert.equal(
      (await nubis.request('DELETE', `/v1.3/snapshot/remove/${created.body.snapshot_id}`, { token: bob.token })).status,
      404,
    );
    const id = (await listed(created.body.snapshot_id)).id;
    assert.equal((await nubis.request('DELETE', `/v1.3/snapshot/remove/${id}`, { token: alice.token })).status, 204);
    assert.equal(await listed(created.body.snapshot_id), undefined);
    assert.equal((await nubis.request('DELETE', `/v1.3/snapshot/remove/${id}`, { token: alice.token })).status, 404);
  });

  test('a snapshot outlives its server', async () => {
    const { server: s, uuid } = await completedSnapshot();
    assert.equal((await nubis.request('DELETE', `/v1.3/server/remove/${s.id}`, { token: alice.token })).status, 204);
    const entry = await listed(uuid);
    assert.equal(entry.server_id, s.uuid);
    assert.equal(entry.status, 'completed');
  });
});

describe('server/create from a snapshot', () => {
  test("image_type snapshot deploys the snapshot's image in its region", async () => {
    const { uuid } = await completedSnapshot({ image: 1011 });
    const created = await nubis.request('POST', '/v1.3/server/create', {
      token: alice.token,
      body: { ...standardServer, image_type: 'snapshot', image: uuid },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.info.img_id, 1011);
    assert.equal(created.body.power, 'provisioning');
  });

  test("refuses another region, a plan too small, and another account's snapshot; one still processing is a valid source", async () => {
    const { uuid } = await completedSnapshot();
    const wrongRegion = await nubis.request('POST', '/v1.3/server/create', {
      token: alice.token,
      body: { ...standardServer, region: 201, image_type: 'snapshot', image: uuid },
    });
    assert.equal(wrongRegion.status, 400);
    assert.equal(wrongRegion.body.errors[0].field, 'region');

    const windows = await completedSnapshot({ image: 1101, plan: 3 });
    const small = await nubis.request('POST', '/v1.3/server/create', {
      token: alice.token,
      body: { ...standardServer, image_type: 'snapshot', image: windows.uuid },
    });
    assert.equal(small.status, 400);
    assert.equal(small.body.errors[0].field, 'plan');

    const foreign = await nubis.request('POST', '/v1.3/server/create', {
      token: bob.token,
      body: { ...standardServer, image_type: 'snapshot', image: uuid },
    });
    assert.equal(foreign.status, 404);
    assert.match(foreign.body.errors.reason, /snapshot not found/);

    await withSlowInstance(async (slow, owner) => {
      const s = await orderServer(slow, owner.token, {});
      await slow.advance(slowTimings.provision);
      const fresh = await slow.request('POST', '/v1.3/snapshot/create', {
        token: owner.token,
        body: { name: 'fresh', server_id: s.id },
      });
      assert.equal(fresh.status, 201, JSON.stringify(fresh.body));
      const processing = await slow.request('POST', '/v1.3/server/create', {
        token: owner.token,
        body: { ...standardServer, image_type: 'snapshot', image: fresh.body.snapshot_id },
      });
      // Still processing: a valid source; provisioning lasts until the snapshot completes, then as long as always.
      assert.equal(processing.status, 201);
      const entry = (await slow.request('GET', '/v1.3/snapshot/list', { token: owner.token })).body.snapshots.find(
        (x: { uuid: string }) => x.uuid === fresh.body.snapshot_id,
      );
      const ready = entry.size_gb * slowTimings.perGb;
      // A minute short of the end, then the minute.
      await slow.advance(ready + slowTimings.provision - 60);
      assert.equal((await serverInfo(slow, owner.token, processing.body.id)).power, 'provisioning');
      await slow.advance(60);
      assert.equal((await serverInfo(slow, owner.token, processing.body.id)).power, 'running');
    });
  });
});
