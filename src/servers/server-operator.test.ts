// Black-box tests of the operator's servers (every account's list with its filters, one server,
// force stop, remove) and of the operator audit log that records each operator action.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ADMIN_TOKEN, startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, orderServer, serverInfo } from '../../test/support/servers.ts';

let nubis: TestInstance;
let alice: TestAccount;
let bob: TestAccount;
before(async () => {
  nubis = await startTestInstance();
  alice = await createAccount(nubis);
  bob = await createAccount(nubis);
});
after(async () => {
  await nubis.close();
});

interface Listed {
  id: number;
  uuid: string;
  account_id: number;
  account_email: string;
  power: string;
  region_id: number;
}

async function listed(query = ''): Promise<Listed[]> {
  const answer = await nubis.admin('GET', `/admin/servers${query}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.servers;
}

describe('operator servers', () => {
  test('the list spans every account and filters by account, power and region, with paging', async () => {
    const a1 = await deployServer(nubis, alice.token);
    const b1 = await deployServer(nubis, bob.token);
    const a2 = await orderServer(nubis, alice.token, { region: 102 });
    const all = await listed('?limit=1000');
    for (const [made, owner] of [
      [a1, alice],
      [a2, alice],
      [b1, bob],
    ] as const) {
      const entry = all.find((s) => s.id === made.id);
      assert.ok(entry, `server ${made.id} listed`);
      assert.equal(entry.uuid, made.uuid);
      assert.equal(entry.account_id, owner.id);
      assert.equal(entry.account_email, owner.email);
    }
    assert.deepEqual(
      all.map((s) => s.id),
      [...all.map((s) => s.id)].sort((x, y) => x - y),
    );

    for (const ref of [alice.id, alice.uuid, alice.email]) {
      const own = await listed(`?account=${encodeURIComponent(String(ref))}`);
      assert.deepEqual(own.map((s) => s.id).sort(), [a1.id, a2.id].sort(), `account=${ref}`);
    }
    const provisioning = await listed(`?account=${alice.id}&power=provisioning`);
    assert.deepEqual(
      provisioning.map((s) => s.id),
      [a2.id],
    );
    const running = await listed(`?account=${alice.id}&power=running`);
    assert.deepEqual(
      running.map((s) => s.id),
      [a1.id],
    );
    assert.deepEqual(
      (await listed(`?account=${alice.id}&region=102`)).map((s) => s.id),
      [a2.id],
    );
    const page = await listed(`?account=${alice.id}&limit=1`);
    assert.deepEqual(
      page.map((s) => s.id),
      [a1.id],
    );
    assert.deepEqual(
      (await listed(`?account=${alice.id}&after=${a1.id}`)).map((s) => s.id),
      [a2.id],
    );

    assert.equal((await nubis.admin('GET', '/admin/servers?account=nobody@example.com')).status, 404);
    assert.equal((await nubis.admin('GET', '/admin/servers?power=sleeping')).status, 400);
    const one = await nubis.admin('GET', `/admin/servers/${b1.uuid}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.account_email, bob.email);
    assert.equal((await nubis.admin('GET', '/admin/servers/999999')).status, 404);
  });

  test('force stop turns a running or provisioning server off at once; a stopped one stays', async () => {
    const running = await deployServer(nubis, bob.token);
    const fresh = await orderServer(nubis, bob.token, {});
    for (const made of [running, fresh]) {
      const stopped = await nubis.admin('POST', `/admin/servers/${made.id}/stop`);
      assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
      assert.equal(stopped.body.power, 'stopped');
      assert.equal((await serverInfo(nubis, bob.token, made.id)).power, 'stopped');
    }
    const again = await nubis.admin('POST', `/admin/servers/${running.uuid}/stop`);
    assert.equal(again.status, 200);
    assert.equal(again.body.power, 'stopped');
    // The owner can start it again.
    const start = await nubis.request('PATCH', '/v1.3/server/start', {
      token: bob.token,
      body: { server_id: running.id },
    });
    assert.equal(start.status, 202, JSON.stringify(start.body));
    assert.equal((await nubis.admin('POST', '/admin/servers/999999/stop')).status, 404);
  });

  test("remove takes any account's server away, as its owner's remove would", async () => {
    const made = await deployServer(nubis, alice.token);
    const removed = await nubis.admin('DELETE', `/admin/servers/${made.uuid}`);
    assert.equal(removed.status, 200);
    assert.deepEqual(removed.body, { removed: true });
    assert.equal((await nubis.request('GET', `/v1.3/server/info/${made.id}`, { token: alice.token })).status, 404);
    assert.equal((await nubis.admin('DELETE', `/admin/servers/${made.uuid}`)).status, 404);
    assert.ok(!(await listed('?limit=1000')).some((s) => s.id === made.id));
  });

  test('the operator server calls need the operator token', async () => {
    for (const [method, path] of [
      ['GET', '/admin/servers'],
      ['POST', '/admin/servers/1/stop'],
      ['DELETE', '/admin/servers/1'],
      ['GET', '/admin/audit'],
    ]) {
      assert.equal((await nubis.request(method!, path!)).status, 401, `${method} ${path}`);
      assert.equal((await nubis.request(method!, path!, { token: alice.token })).status, 401, `${method} ${path}`);
    }
  });
});

interface Entry {
  id: number;
  time: string;
  operator: string;
  client: string;
  method: string;
  call: string;
  target: string | null;
  status: number;
  detail: string | null;
}

async function audit(query = ''): Promise<Entry[]> {
  const answer = await nubis.admin('GET', `/admin/audit${query}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.entries;
}

describe('operator audit log', () => {
  test('records who, what, on which target, the outcome and when, for each changing call', async () => {
    const account = await createAccount(nubis);
    const clockBefore: string = (await nubis.admin('GET', '/admin/clock')).body.now;
    const credit = await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, {
      amount: '5',
      note: 'goodwill',
    });
    assert.equal(credit.status, 201);
    const refused = await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { permissions: { flying: true } });
    assert.equal(refused.status, 400);
    const missing = await nubis.admin('POST', '/admin/servers/424242/stop');
    assert.equal(missing.status, 404);
    // Reads, and calls without the operator token, are not operator actions.
    await nubis.admin('GET', '/admin/accounts');
    await nubis.request('POST', `/admin/accounts/${account.id}/credit`, { token: 'wrong-token-0123456789', body: {} });

    const [stop, patch, creditEntry] = await audit('?limit=3');
    const clockAfter: string = (await nubis.admin('GET', '/admin/clock')).body.now;
    assert.ok(creditEntry!.time >= clockBefore && creditEntry!.time <= clockAfter, creditEntry!.time);
    const digest = `token:${createHash('sha256').update(ADMIN_TOKEN).digest('hex').slice(0, 12)}`;
    assert.deepEqual(
      { ...creditEntry, id: 0, time: '' },
      {
        id: 0,
        time: '',
        operator: digest,
        client: '127.0.0.1',
        method: 'POST',
        call: 'POST /admin/accounts/:account/credit',
        target: `account=${account.id}`,
        status: 201,
        detail: JSON.stringify({ amount: 5, note: 'goodwill' }),
      },
    );
    assert.equal(patch!.call, 'PATCH /admin/accounts/:account');
    assert.equal(patch!.status, 400);
    assert.equal(stop!.call, 'POST /admin/servers/:server/stop');
    assert.equal(stop!.target, 'server=424242');
    assert.equal(stop!.status, 404);
    assert.equal(stop!.detail, null);
    assert.ok(stop!.id > patch!.id && patch!.id > creditEntry!.id);

    const credits = await audit('?call=credit');
    assert.ok(credits.length >= 1);
    assert.ok(credits.every((entry) => entry.call.includes('credit')));
    const older = await audit(`?before=${stop!.id}&limit=1`);
    assert.deepEqual(older, [patch]);
  });

  test('survives a reset, which it records', async () => {
    const before = await audit('?limit=1000');
    assert.equal((await nubis.admin('POST', '/admin/reset')).status, 200);
    const after = await audit('?limit=1000');
    assert.equal(after.length, before.length + 1);
    assert.equal(after[0]!.call, 'POST /admin/reset');
    assert.deepEqual(after.slice(1), before);
  });

  test('ADMIN_NAME names the operator', async () => {
    const named = await startTestInstance({ ADMIN_NAME: 'ops-alice' });
    try {
      await named.admin('POST', '/admin/clock/advance', { seconds: 1 });
      const entries = (await named.admin('GET', '/admin/audit')).body.entries as Entry[];
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.operator, 'ops-alice');
      assert.equal(entries[0]!.detail, '{"seconds":1}');
    } finally {
      await named.close();
    }
  });
});
