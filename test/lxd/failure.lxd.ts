// When machines fail, the customer is told the truth and nothing is silently re-made: an instance
// deleted behind Nubis's back shows as lost to its owner within one reconciliation (a condition,
// the power the engine reports, an event, a mail), and no new instance appears, not even when
// the owner asks for a reboot; recovery is an explicit action (here: reinstall).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonBody } from '../support/instance.ts';
import { mailsTo } from '../support/accounts.ts';
import { awaitPower, eventually, lxdSuite, serverInfo } from './support.ts';

const METRICS_TOKEN = 'failure-metrics-0123456789';
const floating: string[] = [];
const { nubis, alice, lxd, createServer } = await lxdSuite({
  env: { METRICS_TOKEN },
  async cleanUp() {
    for (const ip of floating) await nubis.request('DELETE', `/v1.3/floating_ip/remove/${ip}`, { token: alice.token });
  },
});

const condition = (info: JsonBody, type: string) =>
  (info.conditions as JsonBody[] | undefined)?.find((c) => c.type === type);

test('an instance deleted behind Nubis is shown lost within one reconciliation and never re-made', async () => {
  const uuid = (await createServer({ hostname: 'lost.example.com', label: 'lost' })).uuid as string;
  await awaitPower(nubis, alice.token, uuid, 'running');
  const instance = `/1.0/instances/nubis-${uuid}`;

  // Behind Nubis's back: the instance (and its disk) go.
  await lxd.run('PUT', `${instance}/state`, { body: { action: 'stop', force: true, timeout: 30 } });
  await lxd.run('DELETE', instance);

  // Reconciliation runs every second: the owner sees the loss within a few.
  const lost = await eventually('the loss shown', 10, async () => {
    const info = await serverInfo(nubis, alice.token, uuid);
    return condition(info, 'MachinePresent')?.status === 'false' ? info : undefined;
  });
  assert.equal(lost.power, 'stopped', 'the engine runs nothing for it');
  assert.equal(condition(lost, 'MachinePresent')?.reason, 'InstanceMissing');
  assert.equal(condition(lost, 'Degraded')?.status, 'true');
  const events = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
  assert.ok(
    events.body.events.some((e: JsonBody) => e.type === 'server.lost' && e.resource.uuid === uuid),
    'a server.lost event',
  );
  assert.ok(
    (await mailsTo(nubis, alice.email)).some((m) => /lost/i.test(m.subject) && m.text.includes(uuid)),
    'a mail to the owner',
  );
  const seen = await nubis.admin('GET', `/admin/servers/${uuid}`);
  assert.equal(seen.body.lost, true, 'the operator sees it');
  const metrics = await fetch(`${nubis.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.match(await metrics.text(), /^nubis_servers_lost 1$/m);

  // The owner's power actions are refused: they would need a machine.
  const reboot = await nubis.request('PATCH', '/v1.3/server/reboot', { token: alice.token, body: { server_id: uuid } });
  assert.equal(reboot.status, 409, JSON.stringify(reboot.body));
  // Work that does reach the engine (a floating IP attached: a converge) makes no blank disk.
  const ip = await nubis.request('POST', '/v1.3/floating_ip/create', {
    token: alice.token,
    body: { region_id: 101, ip_version: 4 },
  });
  assert.equal(ip.status, 201, JSON.stringify(ip.body));
  floating.push(ip.body.uuid);
  const attached = await nubis.request('PATCH', '/v1.3/floating_ip/attach', {
    token: alice.token,
    body: { server_id: uuid, ip_id: ip.body.uuid },
  });
  assert.equal(attached.status, 202, JSON.stringify(attached.body));
  const refused = await eventually('the converge refused', 30, async () => {
    const server = (await nubis.admin('GET', `/admin/servers/${uuid}`)).body;
    return /refused: .*lost/.test(server.engine_error ?? '') ? server : undefined;
  });
  assert.equal(refused.lost, true);
  assert.equal(await lxd.exists(instance), false, 'no instance was made again');
  assert.equal((await serverInfo(nubis, alice.token, uuid)).power, 'stopped');

  // Recovery is explicit: a reinstall makes a new disk, and the loss ends.
  const reinstall = await nubis.request('POST', '/v1.3/server/reinstall', {
    token: alice.token,
    body: { server_id: uuid },
  });
  assert.equal(reinstall.status, 202, JSON.stringify(reinstall.body));
  const back = await eventually('recovered', 180, async () => {
    const info = await serverInfo(nubis, alice.token, uuid);
    return info.power === 'running' && condition(info, 'MachinePresent')?.status === 'true' ? info : undefined;
  });
  assert.equal(condition(back, 'Degraded')?.status, 'false');
  assert.equal(await lxd.exists(instance), true);
});
