// A transition's end as events tell it with a real engine: recorded when the engine reported (the
// job settled the server), as the engine left it, not at the driver's upper bound
// (COMPUTE_ACTION_TIMEOUT_SECONDS) with the power that was asked for.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonBody, TestInstance } from '../support/instance.ts';
import { awaitPower, createRefused, eventually, lxdSuite, startLxdInstance } from './support.ts';

let uuid = '';
// A snapshot outlives its server: the suite's teardown removes it, its engine image with it.
const { nubis, alice, lxd, createServer, power } = await lxdSuite();

async function eventsOf(target: TestInstance, account: number, resource: string): Promise<JsonBody[]> {
  const answer = await target.admin('GET', `/admin/events?account=${account}&limit=1000`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.events.filter((e: JsonBody) => e.resource.uuid === resource);
}

/** The event of `type` for the resource, once it is recorded (within a few seconds of the settle). */
function awaitEvent(target: TestInstance, account: number, resource: string, type: string, match: JsonBody = {}) {
  return eventually(`${type} ${JSON.stringify(match)} for ${resource}`, 10, async () =>
    (await eventsOf(target, account, resource)).find(
      (e) => e.type === type && Object.entries(match).every(([k, v]) => e.data[k] === v),
    ),
  );
}

const clockNow = async (target: TestInstance) => Date.parse((await target.admin('GET', '/admin/clock')).body.now);

test('create, stop and snapshot: each end is an event when the engine reports', async () => {
  const started = await clockNow(nubis);
  uuid = (await createServer({ hostname: 'told.example.com', label: 'told' })).uuid;
  await awaitPower(nubis, alice.token, uuid, 'running');
  const running = await awaitEvent(nubis, alice.id, uuid, 'server.power', { power: 'running', after: 'provisioning' });
  const runningAt = Date.parse(running.occurred);
  assert.ok(runningAt >= started - 1000 && runningAt <= (await clockNow(nubis)), running.occurred);

  await power(uuid, 'stop');
  await awaitPower(nubis, alice.token, uuid, 'stopped');
  const stopped = await awaitEvent(nubis, alice.id, uuid, 'server.power', { power: 'stopped', after: 'stopping' });
  assert.ok(Date.parse(stopped.occurred) >= runningAt);

  const snap = await nubis.request('POST', '/v1.3/snapshot/create', {
    token: alice.token,
    body: { name: 'told', server_id: uuid },
  });
  assert.equal(snap.status, 201, JSON.stringify(snap.body));
  const completed = await eventually('snapshot completed', 120, async () => {
    const list = await nubis.request('GET', '/v1.3/snapshot/list', { token: alice.token });
    const entry = list.body.snapshots.find((s: JsonBody) => s.uuid === snap.body.uuid);
    return entry?.status === 'completed' ? entry : undefined;
  });
  assert.equal(completed.status, 'completed');
  await awaitEvent(nubis, alice.id, snap.body.uuid, 'snapshot.completed');
  await awaitEvent(nubis, alice.id, uuid, 'server.power', { power: 'stopped', after: 'snapshotting' });
  // Each transition ended once: no second end comes later from the driver's estimate.
  const ends = (await eventsOf(nubis, alice.id, uuid)).filter((e) => e.type === 'server.power');
  assert.deepEqual(
    ends.map((e) => e.data.after),
    ['provisioning', 'stopping', 'snapshotting'],
  );
});

test('drift: a machine started outside Nubis shows running, and the events say so', async () => {
  await lxd.run('PUT', `/1.0/instances/nubis-${uuid}/state`, { body: { action: 'start', timeout: 30 } });
  await awaitPower(nubis, alice.token, uuid, 'running', 30);
  const seen = await awaitEvent(nubis, alice.id, uuid, 'server.power', { reason: 'the engine reported it' });
  assert.equal(seen.data.power, 'running');
});

test('a provisioning the engine fails ends stopped, with the reason, in the event too', async () => {
  const failing = await startLxdInstance({ LXD_URL: '/nonexistent/lxd.socket', COMPUTE_JOB_ATTEMPTS: '1' });
  try {
    const { owner: bob, uuid } = await createRefused(failing, 'failed.example.com', 30);
    const end = await awaitEvent(failing, bob.id, uuid, 'server.power', { after: 'provisioning' });
    assert.equal(end.data.power, 'stopped');
    assert.match(end.data.error, /^provisioning failed after 1 attempts: engine .* unreachable/);
  } finally {
    await failing.close();
  }
});
