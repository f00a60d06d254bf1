// A snapshot used by another server across the jobs' lines: a server created from a snapshot still
// being copied, with the snapshot removed at once, gets the snapshot's disk (the copy is made
// before, and forgotten after). One attempt per job, so no retry hides a wrong order.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { awaitPower, eventually, lxdSuite, publicAddress, serverInfo, sshEventually, TEST_IMAGE } from './support.ts';

const { nubis, alice, lxd, createServer: create } = await lxdSuite({ env: { COMPUTE_JOB_ATTEMPTS: '1' } });

test('a server made from a snapshot still being copied, the snapshot removed at once, has its disk', async () => {
  const source = await create({ hostname: 'source.example.com', label: 'source', image: TEST_IMAGE });
  const sourceInfo = await awaitPower(nubis, alice.token, source.uuid, 'running');
  await sshEventually(
    publicAddress(sourceInfo),
    { password: sourceInfo.info.password },
    'echo from-the-source > /root/marker && sync',
  );
  const snap = await nubis.request('POST', '/v1.3/snapshot/create', {
    token: alice.token,
    body: { name: 'in-flight', server_id: source.uuid },
  });
  assert.equal(snap.status, 201, JSON.stringify(snap.body));
  // No wait: the copy is being made in the source's line while these are asked.
  const copy = await create({
    hostname: 'copy.example.com',
    label: 'copy',
    image_type: 'snapshot',
    image: snap.body.uuid,
  });
  const removed = await nubis.request('DELETE', `/v1.3/snapshot/remove/${snap.body.uuid}`, { token: alice.token });
  assert.equal(removed.status, 204, JSON.stringify(removed.body));

  const copyInfo = await eventually('the copy settled', 120, async () => {
    const info = await serverInfo(nubis, alice.token, copy.uuid);
    return info.power === 'provisioning' ? undefined : info;
  });
  const seen = await nubis.admin('GET', `/admin/servers/${copy.uuid}`);
  assert.equal(seen.body.engine_error, null);
  assert.equal(copyInfo.power, 'running');
  const fromCopy = await sshEventually(
    publicAddress(copyInfo),
    { password: copyInfo.info.password },
    'hostname; cat /root/marker',
  );
  assert.deepEqual(fromCopy.stdout.trim().split('\n'), ['copy.example.com', 'from-the-source']);
  await eventually('the copy is forgotten after use', 60, async () =>
    (await lxd.exists(`/1.0/images/aliases/nubis-snap-${snap.body.uuid}`)) ? undefined : true,
  );
});
