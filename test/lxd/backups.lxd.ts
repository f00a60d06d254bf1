// Snapshots and daily backups as engine images: the virtual clock moved across days takes a backup
// a day and expires the oldest by retention, and the engine's images follow (each backup listed has
// its image, each expired one's is gone); a restore from a backup brings back a file written before
// it; a snapshot removed while it is being taken leaves no image; a removed server's backups go.

import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { JsonBody } from '../support/instance.ts';
import { awaitPower, eventually, lxdSuite, publicAddress, sshEventually } from './support.ts';

const day = 86_400;
const { nubis, alice, lxd, key, addKey, createServer } = await lxdSuite({
  // The virtual clock (moved by the test) with retention short enough to see it end.
  env: { CLOCK: 'virtual', BACKUP_RETENTION_DAYS: '2' },
  credit: 500,
  async cleanUp() {
    for (const snapshot of await engineImages().catch(() => []))
      if (snapshot.properties?.['nubis.server'] === uuid)
        await lxd.run('DELETE', `/1.0/images/${snapshot.fingerprint}`).catch(() => {});
  },
});
let uuid = '';
let address = '';

// In a hook, not at the top: the suite's `after` removes the server even when this fails.
before(async () => {
  uuid = (await createServer({ hostname: 'kept.example.com', label: 'kept', ssh_key: await addKey() })).uuid;
  address = publicAddress(await awaitPower(nubis, alice.token, uuid, 'running'));
});

const alias = (snapshot: string) => `/1.0/images/aliases/nubis-snap-${snapshot}`;

function engineImages() {
  return lxd.get<{ fingerprint: string; properties?: Record<string, string> }[]>('/1.0/images?recursion=1');
}

async function backups(): Promise<JsonBody[]> {
  const list = await nubis.request('GET', '/v1.3/snapshot/list', { token: alice.token });
  assert.equal(list.status, 200);
  return list.body.snapshots.filter((s: JsonBody) => s.type === 'backup' && s.server_id === uuid);
}

/** Every backup listed has its engine image, and every one no longer listed has none. */
async function imagesFollow(seen: Set<string>): Promise<JsonBody[]> {
  const listed = await backups();
  for (const backup of listed) seen.add(backup.uuid);
  const listedUuids = new Set(listed.map((b) => b.uuid as string));
  return eventually('the engine images follow the backups', 120, async () => {
    for (const backup of seen) if ((await lxd.exists(alias(backup))) !== listedUuids.has(backup)) return undefined;
    return listed;
  });
}

test('daily backups: one a day as an engine image, the expired ones deleted from the engine', async () => {
  const enabled = await nubis.request('PATCH', '/v1.3/backup/enable', {
    token: alice.token,
    body: { server_id: uuid },
  });
  assert.equal(enabled.status, 202, JSON.stringify(enabled.body));
  const seen = new Set<string>();
  let kept: JsonBody[] = [];
  for (let step = 0; step < 4; step++) {
    await nubis.advance(day);
    kept = await imagesFollow(seen);
  }
  const expired = [...seen].filter((backup) => !kept.some((b) => b.uuid === backup));
  assert.ok(expired.length >= 2, `backups expired by retention: ${expired.length} of ${seen.size}`);
  assert.ok(kept.length >= 2, `backups kept: ${kept.length}`);
  for (const backup of kept)
    assert.ok(Date.parse(backup.expires) > Date.parse((await nubis.admin('GET', '/admin/clock')).body.now));
  const tagged = (await engineImages()).filter((i) => i.properties?.['nubis.server'] === uuid);
  assert.equal(tagged.length, kept.length, "the engine holds the kept backups' images, no more");
  assert.ok(tagged.every((i) => i.properties?.['nubis.kind'] === 'backup'));
});

test('restore from a backup: a file written before it is back', async () => {
  await sshEventually(address, { key: key.path }, 'echo kept-by-backup > /root/marker && sync');
  const before = new Set((await backups()).map((b) => b.uuid as string));
  await nubis.advance(day);
  const newest = (await imagesFollow(new Set(before))).find((b) => !before.has(b.uuid));
  assert.ok(newest, 'a backup was taken for the new day');
  await sshEventually(address, { key: key.path }, 'rm /root/marker');
  const restored = await nubis.request('PATCH', '/v1.3/backup/restore', {
    token: alice.token,
    body: { backup_id: newest.uuid, server_id: uuid },
  });
  assert.equal(restored.status, 202, JSON.stringify(restored.body));
  await awaitPower(nubis, alice.token, uuid, 'running');
  const marker = await sshEventually(address, { key: key.path }, 'cat /root/marker');
  assert.equal(marker.stdout.trim(), 'kept-by-backup');
});

test('two snapshots in a row: both are copied, and the server settles when the second is', async () => {
  const taken: string[] = [];
  for (const name of ['first', 'second']) {
    const snap = await nubis.request('POST', '/v1.3/snapshot/create', {
      token: alice.token,
      body: { name, server_id: uuid },
    });
    assert.equal(snap.status, 201, JSON.stringify(snap.body));
    taken.push(snap.body.uuid);
  }
  const settled = await eventually('snapshotting ended', 120, async () => {
    const [info, list] = await Promise.all([
      nubis.request('GET', `/v1.3/server/info/${uuid}`, { token: alice.token }),
      nubis.request('GET', '/v1.3/snapshot/list', { token: alice.token }),
    ]);
    return info.body.power === 'running' ? list.body.snapshots : undefined;
  });
  for (const snapshot of taken) {
    assert.equal(settled.find((s: JsonBody) => s.uuid === snapshot)?.status, 'completed', snapshot);
    assert.ok(await lxd.exists(alias(snapshot)), `the engine holds ${snapshot}`);
    const removed = await nubis.request('DELETE', `/v1.3/snapshot/remove/${snapshot}`, { token: alice.token });
    assert.equal(removed.status, 204);
  }
  await eventually('copies deleted', 60, async () => {
    for (const snapshot of taken) if (await lxd.exists(alias(snapshot))) return undefined;
    return true;
  });
});

test('a snapshot removed while it is being taken leaves no engine image', async () => {
  const snap = await nubis.request('POST', '/v1.3/snapshot/create', {
    token: alice.token,
    body: { name: 'fleeting', server_id: uuid },
  });
  assert.equal(snap.status, 201, JSON.stringify(snap.body));
  const removed = await nubis.request('DELETE', `/v1.3/snapshot/remove/${snap.body.uuid}`, { token: alice.token });
  assert.equal(removed.status, 204, JSON.stringify(removed.body));
  // The copy is taken (the snapshotting transition ends when the engine reports), then forgotten.
  await eventually('snapshotting ended', 120, async () => {
    const info = await nubis.request('GET', `/v1.3/server/info/${uuid}`, { token: alice.token });
    return info.body.power === 'running' ? true : undefined;
  });
  await eventually('the copy is deleted', 60, async () =>
    (await lxd.exists(alias(snap.body.uuid))) ? undefined : true,
  );
  const images = await engineImages();
  assert.ok(!images.some((i) => i.properties?.description?.includes(snap.body.uuid)), 'no image of the snapshot');
});

test("a removed server's backups go from the engine; its snapshots stay", async () => {
  const snap = await nubis.request('POST', '/v1.3/snapshot/create', {
    token: alice.token,
    body: { name: 'outlives', server_id: uuid },
  });
  assert.equal(snap.status, 201, JSON.stringify(snap.body));
  await eventually('snapshot copied', 120, async () => ((await lxd.exists(alias(snap.body.uuid))) ? true : undefined));
  const taken = (await backups()).map((b) => b.uuid as string);
  assert.ok(taken.length > 0);
  const removed = await nubis.request('DELETE', `/v1.3/server/remove/${uuid}`, { token: alice.token });
  assert.equal(removed.status, 204);
  await eventually("the backups' images deleted", 60, async () => {
    for (const backup of taken) if (await lxd.exists(alias(backup))) return undefined;
    return true;
  });
  assert.ok(await lxd.exists(alias(snap.body.uuid)), "the snapshot's image stays");
  const gone = await nubis.request('DELETE', `/v1.3/snapshot/remove/${snap.body.uuid}`, { token: alice.token });
  assert.equal(gone.status, 204);
  await eventually('snapshot image deleted', 60, async () =>
    (await lxd.exists(alias(snap.body.uuid))) ? undefined : true,
  );
});
