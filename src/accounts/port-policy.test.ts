// Blocked ports as the API shows them: the deployment's default, an account's own list set by the
// operator, and `smtp` lifting the SMTP ports; account info and the operator's view agree, and a
// bad list is refused naming the field. (What the engine does with them: test/lxd/policy.lxd.ts.)

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount } from '../../test/support/accounts.ts';
import { blockedPortsOf } from './port-policy.ts';
import { effectivePermissions } from './permissions.ts';

let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance({ BLOCKED_PORTS_TCP: '25,465,587,2525', BLOCKED_PORTS_UDP: '53' });
});
after(async () => {
  await nubis.close();
});

async function shown(token: string) {
  const info = await nubis.request('GET', '/v1.3/account/info', { token });
  assert.equal(info.status, 200, JSON.stringify(info.body));
  return { blocked_ports: info.body.blocked_ports, smtp: info.body.smtp };
}

test("an account's blocked ports: the default, its own list, smtp lifting 25, 465 and 587, and back", async () => {
  const alice = await createAccount(nubis);
  assert.deepEqual(await shown(alice.token), { blocked_ports: { TCP: [25, 465, 587, 2525], UDP: [53] }, smtp: false });

  const lifted = await nubis.admin('PATCH', `/admin/accounts/${alice.id}`, { smtp: true });
  assert.equal(lifted.status, 200, JSON.stringify(lifted.body));
  assert.deepEqual(lifted.body.blocked_ports, { TCP: [2525], UDP: [53] });
  assert.deepEqual(await shown(alice.token), { blocked_ports: { TCP: [2525], UDP: [53] }, smtp: true });

  const own = await nubis.admin('PATCH', `/admin/accounts/${alice.id}`, {
    blocked_ports: { TCP: [587, 25, 6667, 25], UDP: [5060] },
  });
  assert.equal(own.status, 200, JSON.stringify(own.body));
  // Sorted, without repeats, and still without the SMTP ports while smtp is true.
  assert.deepEqual(own.body.blocked_ports, { TCP: [6667], UDP: [5060] });
  await nubis.admin('PATCH', `/admin/accounts/${alice.id}`, { smtp: false });
  assert.deepEqual((await shown(alice.token)).blocked_ports, { TCP: [25, 587, 6667], UDP: [5060] });

  const back = await nubis.admin('PATCH', `/admin/accounts/${alice.id}`, { blocked_ports: null });
  assert.equal(back.status, 200, JSON.stringify(back.body));
  assert.deepEqual(back.body.blocked_ports, { TCP: [25, 465, 587, 2525], UDP: [53] });

  // Another account is untouched throughout.
  const bob = await createAccount(nubis);
  assert.deepEqual((await shown(bob.token)).blocked_ports, { TCP: [25, 465, 587, 2525], UDP: [53] });
});

test('a bad blocked_ports list answers 400 naming the field and changes nothing', async () => {
  const alice = await createAccount(nubis);
  for (const bad of [
    { TCP: [0], UDP: [] },
    { TCP: [65536], UDP: [] },
    { TCP: [25], UDP: ['x'] },
    { TCP: [25] },
    'all',
    { TCP: Array.from({ length: 101 }, (_, i) => i + 1), UDP: [] },
  ]) {
    const refused = await nubis.admin('PATCH', `/admin/accounts/${alice.id}`, { blocked_ports: bad });
    assert.equal(refused.status, 400, `${JSON.stringify(bad)}: ${JSON.stringify(refused.body)}`);
    assert.match(JSON.stringify(refused.body), /blocked_ports/);
  }
  assert.deepEqual((await shown(alice.token)).blocked_ports, { TCP: [25, 465, 587, 2525], UDP: [53] });
});

test('lists and permission sets worked out once are shared frozen, and kept apart by their inputs', () => {
  // Two deployments in one process (emulators side by side) with the same account rows.
  const one = { TCP: [25, 2525], UDP: [53] };
  const two = { TCP: [25, 6667], UDP: [53] };
  const account = { blocked_ports: null, smtp: 1 };
  assert.deepEqual(blockedPortsOf(one, account), { TCP: [2525], UDP: [53] });
  assert.deepEqual(blockedPortsOf(two, account), { TCP: [6667], UDP: [53] });
  assert.deepEqual(blockedPortsOf(one, { ...account, smtp: 0 }), { TCP: [25, 2525], UDP: [53] });
  const shared = blockedPortsOf(one, account);
  assert.equal(blockedPortsOf(one, account), shared);
  assert.throws(() => (shared.TCP as number[]).push(1), TypeError);

  const granted = effectivePermissions(null);
  assert.equal(granted.servers, true);
  assert.equal(effectivePermissions('{"servers":false}').servers, false);
  assert.equal(effectivePermissions(null), granted);
  assert.throws(() => {
    (granted as { servers: boolean }).servers = false;
  }, TypeError);
  assert.equal(effectivePermissions(null).servers, true);
});
