// The engine out of reach, on the real driver (a second Nubis pointed through a gate at the
// engine's socket, so the daemon itself is never touched): servers show EngineReachable=false and
// power unknown within a bounded time, an action is accepted and done once when the engine is
// back; and a snapshot whose copy gives up ends failed and is told, with no image left behind.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { JsonBody } from '../support/instance.ts';
import { mailsTo } from '../support/accounts.ts';
import { awaitPower, EngineGate, eventually, lxdSuite, lxdUrl, serverInfo } from './support.ts';

const gate = new EngineGate(lxdUrl);
await gate.listen();
gate.open = true;
// Hooks run in the order they were added: the gate opens before the suite removes its servers,
// and closes after its Nubis has.
after(() => {
  gate.open = true;
});
const { nubis, alice, lxd, created, createServer } = await lxdSuite({
  env: { LXD_URL: gate.path, COMPUTE_OBSERVE_TIMEOUT_SECONDS: '3', COMPUTE_JOB_ATTEMPTS: '3' },
});
after(() => gate.close());

const condition = (info: JsonBody, type: string) =>
  (info.conditions as JsonBody[] | undefined)?.find((c) => c.type === type);

async function events(uuid: string, type: string): Promise<JsonBody[]> {
  const answer = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
  return answer.body.events.filter((e: JsonBody) => e.resource.uuid === uuid && e.type === type);
}

test('engine unreachable: unknown power within the bound, an action queued and done once when it is back', async () => {
  const uuid = (await createServer({ hostname: 'outage.example.com', label: 'outage' })).uuid as string;
  await awaitPower(nubis, alice.token, uuid, 'running');

  gate.cut();
  const silent = await eventually('the outage shown', 15, async () => {
    const info = await serverInfo(nubis, alice.token, uuid);
    return info.power === 'unknown' ? info : undefined;
  });
  assert.equal(condition(silent, 'EngineReachable')?.status, 'false');
  assert.equal(condition(silent, 'EngineReachable')?.reason, 'EngineUnreachable');
  assert.equal(condition(silent, 'Degraded')?.status, 'true');

  // Accepted and queued as before; shown as under way.
  const reboot = await nubis.request('PATCH', '/v1.3/server/reboot', { token: alice.token, body: { server_id: uuid } });
  assert.equal(reboot.status, 202, JSON.stringify(reboot.body));
  assert.equal((await serverInfo(nubis, alice.token, uuid)).power, 'rebooting');

  // The engine answers again while the reboot is under way (its stop held at the gate): the
  // server shows the engine reachable at once, not only when its job reports.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  gate.before(/^PUT \/1\.0\/instances\/nubis-[^/ ]+\/state /m, () => held);
  gate.open = true;
  try {
    const reachable = await eventually('reachable while the job is under way', 15, async () => {
      const info = await serverInfo(nubis, alice.token, uuid);
      return condition(info, 'EngineReachable')?.status === 'true' ? info : undefined;
    });
    assert.equal(reachable.power, 'rebooting', 'its job is still under way');
  } finally {
    release();
  }
  const back = await eventually('back', 120, async () => {
    const info = await serverInfo(nubis, alice.token, uuid);
    return info.power === 'running' && condition(info, 'EngineReachable')?.status === 'true' ? info : undefined;
  });
  assert.equal(condition(back, 'Degraded')?.status, 'false');
  const reboots = (await events(uuid, 'server.power')).filter((e) => e.data.after === 'rebooting');
  assert.equal(reboots.length, 1, 'the reboot was done once');
  assert.equal((await events(uuid, 'server.lost')).length, 0, 'an unreachable engine is no lost machine');
});

test('a snapshot whose copy gives up ends failed, is told, and leaves no image', async () => {
  const uuid = created[0]!;
  gate.cut();
  const taken = await nubis.request('POST', '/v1.3/snapshot/create', {
    token: alice.token,
    body: { name: 'doomed copy', server_id: uuid },
  });
  assert.equal(taken.status, 201, JSON.stringify(taken.body));
  const snapshot = taken.body.uuid as string;
  const failed = await eventually('the copy failed', 60, async () => {
    const list = await nubis.request('GET', '/v1.3/snapshot/list', { token: alice.token });
    return list.body.snapshots.find((s: JsonBody) => s.uuid === snapshot && s.status === 'failed');
  });
  assert.equal(failed.status, 'failed');
  const told = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
  const event = told.body.events.find((e: JsonBody) => e.type === 'snapshot.failed' && e.resource.uuid === snapshot);
  assert.ok(event, 'a snapshot.failed event');
  assert.match(event.data.reason, /the copy failed after 3 attempts/);
  assert.ok(
    (await mailsTo(nubis, alice.email)).some((m) => m.subject.includes('doomed copy failed')),
    'a mail to the owner',
  );
  const restore = await nubis.request('PATCH', '/v1.3/snapshot/restore', {
    token: alice.token,
    body: { snapshot_id: snapshot, server_id: uuid },
  });
  assert.equal(restore.status, 409, JSON.stringify(restore.body));

  gate.open = true;
  // The forgetting job runs once the engine answers: no image under the snapshot's alias.
  const alias = `/1.0/images/aliases/nubis-snap-${snapshot}`;
  await eventually('no image left', 60, async () => ((await lxd.exists(alias)) ? undefined : true));
  assert.equal(await lxd.exists(alias), false);
});
