// Bandwidth overage on the simulated driver: its deterministic traffic grows with the virtual
// clock, so moving the clock crosses a server's point (bw_overage_threshold × the plan's
// bandwidth). power_off stops the server there (not before), mails its owner and holds it off
// until the threshold or policy changes or the month rolls over; throttle limits it (shown as
// bandwidth.applied) and lifts the limit below the point; charge bills each whole GB past the
// point at the region's catalog rate, exactly. (The real engine's side: test/lxd/overage.lxd.ts.)

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, mailsTo, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, serverInfo, standardServer, storeCopies } from '../../test/support/servers.ts';

let nubis: TestInstance;
let alice: TestAccount;
const hour = 3600;

before(async () => {
  nubis = await startTestInstance();
  alice = await createAccount(nubis, { credit: 1000 });
  // Start at the top of a month, so no test here meets a month's end before it means to.
  await nubis.advance(await secondsToNextMonth());
});
after(async () => {
  await nubis.close();
});

async function secondsToNextMonth(instance: TestInstance = nubis): Promise<number> {
  const now = Date.parse((await instance.admin('GET', '/admin/clock')).body.now);
  const date = new Date(now);
  return Math.ceil((Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) - now) / 1000) + 60;
}

async function setOption(id: number, name: string, value: string) {
  const set = await nubis.request('PUT', `/v1.3/option/set/${id}`, { token: alice.token, body: { name, value } });
  assert.equal(set.status, 202, JSON.stringify(set.body));
}

/** A threshold that puts the server's point at `gb` GB of its plan's allowance. */
function thresholdFor(limitGb: number, gb: number): string {
  return String(gb / limitGb);
}

async function overageEvents(uuid: string) {
  const answer = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return (answer.body.events as { type: string; resource: { uuid: string }; data: Record<string, unknown> }[]).filter(
    (event) => event.type === 'server.overage' && event.resource.uuid === uuid,
  );
}

async function start(id: number) {
  return nubis.request('PATCH', '/v1.3/server/start', { token: alice.token, body: { server_id: id } });
}

test('power_off: the server runs below its point, is powered off and mailed at it, and held off until a change', async () => {
  const s = await deployServer(nubis, alice.token, { label: 'busy', hostname: 'busy.example.com' });
  const limit = (await serverInfo(nubis, alice.token, s.id)).bandwidth.limit as number;
  await setOption(s.id, 'bw_overage_threshold', thresholdFor(limit, 2));
  let info = await serverInfo(nubis, alice.token, s.id);
  assert.equal(info.bandwidth.point, 2);
  assert.equal(info.info.options.bw_overage_policy, 'power_off');
  let steps = 0;
  for (; steps < 40; steps++) {
    await nubis.advance(4 * hour);
    info = await serverInfo(nubis, alice.token, s.id);
    if (info.bandwidth.usage < info.bandwidth.point) {
      assert.equal(info.power, 'running', `not before the point: ${JSON.stringify(info.bandwidth)}`);
      assert.equal(info.bandwidth.applied, null);
    } else break;
  }
  assert.ok(steps > 0 && steps < 40, `the point is crossed after some steps (${steps})`);
  assert.equal(info.power, 'stopped', JSON.stringify(info.bandwidth));
  assert.equal(info.bandwidth.applied, 'power_off');
  const [event] = await overageEvents(s.uuid);
  assert.equal(event?.data.action, 'powered_off');
  assert.ok((event?.data.usage_gb as number) >= 2);
  const mail = (await mailsTo(nubis, alice.email)).find((m) => /powered off/.test(m.subject));
  assert.ok(mail, 'the owner is mailed');
  assert.match(mail.subject, /busy/);
  assert.match(mail.text, /bw_overage_threshold/);

  // A start (or a rescue boot) is refused, saying why, while the point is reached.
  const refused = await start(s.id);
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.match(refused.body.errors.reason, /bandwidth point of 2 GB.*bw_overage_policy power_off/);

  // Raising the threshold lets it start, and it stays up.
  await setOption(s.id, 'bw_overage_threshold', '1');
  assert.equal((await start(s.id)).status, 202);
  await nubis.advance(600);
  info = await serverInfo(nubis, alice.token, s.id);
  assert.deepEqual([info.power, info.bandwidth.applied], ['running', null]);

  // Lowered again: off at the next round; the next month starts it afresh.
  await setOption(s.id, 'bw_overage_threshold', thresholdFor(limit, 1));
  await nubis.advance(60);
  assert.equal((await serverInfo(nubis, alice.token, s.id)).power, 'stopped');
  assert.equal((await start(s.id)).status, 409);
  await nubis.advance(await secondsToNextMonth());
  info = await serverInfo(nubis, alice.token, s.id);
  assert.ok(info.bandwidth.usage < 1, `a new month's usage starts at 0: ${info.bandwidth.usage}`);
  assert.equal((await start(s.id)).status, 202);
});

test('throttle: applied at the point without stopping the server, lifted when the point moves above usage', async () => {
  const s = await deployServer(nubis, alice.token, { label: 'slow', hostname: 'slow.example.com' });
  const limit = (await serverInfo(nubis, alice.token, s.id)).bandwidth.limit as number;
  await setOption(s.id, 'bw_overage_policy', 'throttle');
  await setOption(s.id, 'bw_overage_threshold', thresholdFor(limit, 2));
  let info = await serverInfo(nubis, alice.token, s.id);
  for (let steps = 0; steps < 40 && info.bandwidth.usage < info.bandwidth.point; steps++) {
    assert.equal(info.bandwidth.applied, null);
    await nubis.advance(4 * hour);
    info = await serverInfo(nubis, alice.token, s.id);
  }
  assert.deepEqual([info.power, info.bandwidth.applied], ['running', 'throttle']);
  assert.deepEqual(
    (await overageEvents(s.uuid)).map((e) => e.data.action),
    ['throttled'],
  );
  await setOption(s.id, 'bw_overage_threshold', '1');
  await nubis.advance(60);
  info = await serverInfo(nubis, alice.token, s.id);
  assert.deepEqual([info.power, info.bandwidth.applied], ['running', null]);
  assert.deepEqual(
    (await overageEvents(s.uuid)).map((e) => e.data.action),
    ['throttled', 'unthrottled'],
  );
});

test("charge: each whole GB past the point is billed once at the region's rate, to the micro-dollar", async () => {
  const s = await deployServer(nubis, alice.token, { label: 'meter', hostname: 'meter.example.com' });
  const limit = (await serverInfo(nubis, alice.token, s.id)).bandwidth.limit as number;
  await setOption(s.id, 'bw_overage_policy', 'charge');
  await setOption(s.id, 'bw_overage_threshold', thresholdFor(limit, 1));
  for (let steps = 0; steps < 40; steps++) {
    await nubis.advance(4 * hour);
    const info = await serverInfo(nubis, alice.token, s.id);
    assert.equal(info.power, 'running');
    if (info.bandwidth.usage >= info.bandwidth.point + 3.5) break;
  }
  const catalog = JSON.parse(readFileSync(new URL('../catalog/catalog.json', import.meta.url), 'utf8'));
  const rate = catalog.regions.find((r: { id: number }) => r.id === standardServer.region).bandwidth_overage_per_gb;
  const rateMicros = Math.round(Number(rate) * 1e6);
  const charged = await overageEvents(s.uuid);
  assert.ok(charged.length > 0 && charged.every((e) => e.data.action === 'charged'));
  // What the last charge saw: every whole GB past the point by then is billed, none twice.
  const last = charged.at(-1)!.data as { usage_gb: number; point_gb: number };
  const gbOver = Math.floor(Math.round((last.usage_gb - last.point_gb) * 100) / 100);
  assert.ok(gbOver >= 3, `${gbOver} GB over`);
  const invoices = await nubis.request('GET', '/v1.3/invoice/list', { token: alice.token });
  assert.equal(invoices.status, 200);
  const items = (invoices.body.invoices as { resource_type: string; amount_mo: number; active: number }[]).filter(
    (item) => item.resource_type === 'bandwidth',
  );
  assert.ok(items.length > 0 && items.every((item) => item.active === 0));
  const billedMicros = items.reduce((sum, item) => sum + Math.round(item.amount_mo * 1e6), 0);
  assert.equal(billedMicros, gbOver * rateMicros);
  const sum = await nubis.request('POST', '/v1.3/invoice/sum', { token: alice.token, body: {} });
  assert.equal(sum.status, 200);
  assert.equal(Math.round(sum.body.bandwidth * 100), Math.round((gbOver * rateMicros) / 10_000));
});

// Found with a fleet of 100,000 servers: the sweep read every server at once and asked the traffic
// meter for all of them in one statement, past the number of values a statement may bind (SQLite
// 32,766, PostgreSQL 65,535), so it failed every round and no policy was carried out.
test('a fleet past what one statement can bind: the sweep still reaches the last server', async () => {
  // Storing the fleet leaves the test's pooled connection idle for seconds: one the server closes
  // just as the next request reuses it fails that request (ECONNRESET), so idle ones are kept.
  const own = await startTestInstance({ KEEP_ALIVE_TIMEOUT_MS: '600000' }, { captureLog: true });
  try {
    const [owner, fleetOwner] = await Promise.all([
      createAccount(own, { credit: 1000 }),
      createAccount(own, { credit: 1000 }),
    ]);
    await own.advance(await secondsToNextMonth(own));
    // 70,000 stopped servers of another account copied from one, stored straight into the table,
    // before the busy one.
    const template = await deployServer(own, fleetOwner.token, { label: 'filler', hostname: 'filler.example.com' });
    await storeCopies(own, template.uuid, 70_000, { power: 'stopped', action: null });
    const busy = await deployServer(own, owner.token, { label: 'busy', hostname: 'busy.example.com' });
    const limit = (await serverInfo(own, owner.token, busy.id)).bandwidth.limit as number;
    const set = await own.request('PUT', `/v1.3/option/set/${busy.id}`, {
      token: owner.token,
      body: { name: 'bw_overage_threshold', value: thresholdFor(limit, 2) },
    });
    assert.equal(set.status, 202, JSON.stringify(set.body));
    // Well past the point (crossed within 160 hours above), inside the month.
    await own.advance(10 * 24 * hour);
    const info = await serverInfo(own, owner.token, busy.id);
    assert.ok(info.bandwidth.usage >= info.bandwidth.point, JSON.stringify(info.bandwidth));
    assert.equal(info.power, 'stopped', JSON.stringify(info.bandwidth));
    assert.equal(info.bandwidth.applied, 'power_off');
    assert.deepEqual(own.errorLog(), []);
  } finally {
    await own.close();
  }
});
