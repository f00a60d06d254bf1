// Black-box tests of the operator API: accounts (find, change), credits, the mail outbox,
// the clock, the full reset, and the API being off without ADMIN_TOKEN.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, mailsTo, registerBody, uniqueEmail } from '../../test/support/accounts.ts';
import { type Call, refusingSmtp, runClockScenario } from '../../test/support/clock-scenario.ts';

const timestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance();
});
after(async () => {
  await nubis.close();
});

describe('accounts', () => {
  test('GET /admin/accounts lists accounts as Account objects plus blocked; ?email= finds one in any case', async () => {
    const account = await createAccount(nubis);
    const all = await nubis.admin('GET', '/admin/accounts');
    assert.equal(all.status, 200);
    assert.ok(all.body.accounts.some((a: { id: number }) => a.id === account.id));
    const found = await nubis.admin('GET', `/admin/accounts?email=${encodeURIComponent(account.email.toUpperCase())}`);
    assert.equal(found.status, 200);
    assert.equal(found.body.accounts.length, 1);
    const [entry] = found.body.accounts;
    const own = (await nubis.request('GET', '/v1.3/account/info', { token: account.token })).body;
    assert.deepEqual(entry, { ...own, blocked: false });
    assert.deepEqual((await nubis.admin('GET', `/admin/accounts?email=${uniqueEmail('nobody')}`)).body, {
      accounts: [],
    });
  });

  test('GET /admin/accounts/:account shows one account by id, uuid or e-mail; 404 for no one', async () => {
    const account = await createAccount(nubis);
    const listed = (await nubis.admin('GET', `/admin/accounts?email=${encodeURIComponent(account.email)}`)).body
      .accounts[0];
    for (const ref of [account.id, account.uuid, account.email]) {
      const shown = await nubis.admin('GET', `/admin/accounts/${encodeURIComponent(String(ref))}`);
      assert.equal(shown.status, 200, String(ref));
      assert.deepEqual(shown.body, listed);
    }
    assert.equal((await nubis.admin('GET', `/admin/accounts/${uniqueEmail('nobody')}`)).status, 404);
  });

  test('PATCH by id, uuid or e-mail changes each field and answers the account', async () => {
    const account = await createAccount(nubis, { activate: false });
    const byId = await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { activated: true });
    assert.equal(byId.status, 200);
    assert.equal(byId.body.id, account.id);
    assert.equal(byId.body.activated, true);
    const byUuid = await nubis.admin('PATCH', `/admin/accounts/${account.uuid}`, { servers_limit: 42, smtp: true });
    assert.equal(byUuid.status, 200);
    assert.deepEqual([byUuid.body.servers.limit, byUuid.body.smtp], [42, true]);
    const byEmail = await nubis.admin('PATCH', `/admin/accounts/${encodeURIComponent(account.email)}`, {
      blocked: true,
      permissions: { servers: false, snapshots: false },
    });
    assert.equal(byEmail.status, 200);
    assert.equal(byEmail.body.blocked, true);
    assert.equal(byEmail.body.permissions.servers, false);
    assert.equal(byEmail.body.permissions.snapshots, false);
    assert.equal(byEmail.body.permissions.vpcs, true);
    // Permissions merge: turning one back on leaves the other off.
    const merged = await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { permissions: { servers: true } });
    assert.deepEqual([merged.body.permissions.servers, merged.body.permissions.snapshots], [true, false]);
    const info = (await nubis.request('GET', '/v1.3/account/info', { token: account.token })).body;
    assert.equal(info.activated, true);
    assert.equal(info.servers.limit, 42);
  });

  test('an unknown account is a 404; bad values are 400s naming the field', async () => {
    for (const ref of ['999999999', '00000000-0000-4000-8000-000000000000', encodeURIComponent(uniqueEmail('ghost'))]) {
      const result = await nubis.admin('PATCH', `/admin/accounts/${ref}`, { smtp: true });
      assert.equal(result.status, 404, ref);
      assert.deepEqual(result.body, {
        errors: { response: '404 Not Found', reason: 'account not found, check the id or uuid' },
      });
    }
    const account = await createAccount(nubis);
    const unknownPermission = await nubis.admin('PATCH', `/admin/accounts/${account.id}`, {
      permissions: { teleport: true },
    });
    assert.equal(unknownPermission.status, 400);
    assert.equal(unknownPermission.body.errors[0].field, 'permissions');
    const wrongTypes = await nubis.admin('PATCH', `/admin/accounts/${account.id}`, {
      servers_limit: -1,
      activated: 'very',
    });
    assert.equal(wrongTypes.status, 400);
    assert.deepEqual(wrongTypes.body.errors.map((e: { field: string }) => e.field).sort(), [
      'activated',
      'servers_limit',
    ]);
  });
});

describe('credit', () => {
  test("201 with the new transaction, which appears in that account's transaction list only", async () => {
    const [account, other] = await Promise.all([
      createAccount(nubis, { credit: 0 }),
      createAccount(nubis, { credit: 0 }),
    ]);
    const result = await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, {
      amount: '12.50',
      note: 'welcome bonus',
    });
    assert.equal(result.status, 201);
    assert.deepEqual(Object.keys(result.body).sort(), [
      'amount',
      'fee',
      'id',
      'note',
      'pstatus',
      'ptype',
      'reference',
      'taxrate',
      'ts_created',
      'ts_last_changed',
    ]);
    assert.equal(result.body.amount, 12.5);
    assert.equal(result.body.note, 'welcome bonus');
    assert.match(result.body.ts_created, timestamp);
    const list = await nubis.request('GET', '/v1.3/transaction/list', { token: account.token });
    assert.equal(list.status, 200);
    assert.ok(list.body.transactions.some((t: { id: string }) => String(t.id) === String(result.body.id)));
    const others = await nubis.request('GET', '/v1.3/transaction/list', { token: other.token });
    assert.equal(
      others.body.transactions.some((t: { id: string }) => String(t.id) === String(result.body.id)),
      false,
    );

    assert.equal((await nubis.admin('POST', `/admin/accounts/${account.uuid}/credit`, { amount: 7 })).status, 201);
    assert.equal((await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, { amount: -2.5 })).status, 201);
    assert.equal((await nubis.request('GET', '/v1.3/account/info', { token: account.token })).body.balance, 17);
  });

  test('a zero, malformed or missing amount is a 400 naming amount; an unknown account a 404', async () => {
    const account = await createAccount(nubis, { credit: 0 });
    for (const body of [{ amount: 0 }, { amount: 'lots' }, { amount: '1.1234567' }, {}]) {
      const result = await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, body);
      assert.equal(result.status, 400, JSON.stringify(body));
      assert.equal(result.body.errors[0].field, 'amount', JSON.stringify(body));
    }
    assert.equal((await nubis.admin('POST', '/admin/accounts/999999999/credit', { amount: 1 })).status, 404);
  });
});

describe("an account's transactions", () => {
  test('GET /admin/accounts/:account/transactions lists what the account sees, notes included, by id, uuid or e-mail', async () => {
    const account = await createAccount(nubis, { credit: 0 });
    const other = await createAccount(nubis, { credit: 0 });
    for (const [amount, note] of [
      ['12.50', 'first'],
      ['-2', 'correction'],
    ])
      assert.equal((await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, { amount, note })).status, 201);
    await nubis.admin('POST', `/admin/accounts/${other.id}/credit`, { amount: 5, note: 'elsewhere' });
    const own = await nubis.request('GET', '/v1.3/transaction/list', { token: account.token });
    for (const ref of [String(account.id), account.uuid, account.email.toUpperCase()]) {
      const listed = await nubis.admin('GET', `/admin/accounts/${encodeURIComponent(ref)}/transactions`);
      assert.equal(listed.status, 200, ref);
      assert.deepEqual(
        listed.body.transactions.map((t: { id: string; amount: number; note: string }) => [t.id, t.amount, t.note]),
        own.body.transactions.map((t: { id: string; amount: number }) => [
          t.id,
          t.amount,
          t.amount > 0 ? 'first' : 'correction',
        ]),
      );
      assert.equal(listed.body.meta.total, 2);
    }
    assert.equal((await nubis.admin('GET', '/admin/accounts/999999/transactions')).status, 404);
    assert.equal(
      (await nubis.request('GET', `/admin/accounts/${account.id}/transactions`, { token: account.token })).status,
      401,
    );
  });
});

describe('outbox', () => {
  test('every mail the server sent, newest first, filtered by recipient', async () => {
    const account = await createAccount(nubis);
    await nubis.request('PATCH', '/v1.3/account/reset', { body: { email: account.email } });
    const result = await nubis.admin('GET', `/admin/outbox?to=${encodeURIComponent(account.email.toUpperCase())}`);
    assert.equal(result.status, 200);
    const messages = result.body.messages;
    assert.equal(messages.length, 2);
    assert.match(messages[0].subject, /temporary/i);
    assert.match(messages[1].subject, /activate/i);
    assert.ok(messages[0].id > messages[1].id);
    for (const message of messages) {
      assert.deepEqual(Object.keys(message).sort(), [
        'attachment',
        'attempts',
        'created',
        'delivered',
        'id',
        'last_error',
        'subject',
        'text',
        'to',
      ]);
      assert.equal(message.to, account.email);
      assert.match(message.created, timestamp);
      assert.equal(message.delivered, false);
      assert.equal(message.attachment, null);
    }
    const everything = (await nubis.admin('GET', '/admin/outbox')).body.messages;
    assert.ok(everything.length >= 2);
    assert.ok(everything.every((m: { id: number }, i: number) => i === 0 || everything[i - 1].id > m.id));
  });
});

describe('clock', () => {
  test('reads the virtual clock and moves it; every timestamp written follows it', async () => {
    const before = await nubis.admin('GET', '/admin/clock');
    assert.equal(before.status, 200);
    assert.equal(before.body.mode, 'virtual');
    assert.match(before.body.now, timestamp);
    const advanced = await nubis.admin('POST', '/admin/clock/advance', { seconds: 10 * 86400 });
    assert.equal(advanced.status, 200);
    assert.match(advanced.body.now, timestamp);
    const moved = Date.parse(advanced.body.now) - Date.parse(before.body.now);
    assert.ok(moved >= 10 * 86400_000, `moved ${moved} ms`);

    const registered = await nubis.request('POST', '/v1.3/account/register', { body: registerBody() });
    const after = (await nubis.admin('GET', '/admin/clock')).body.now;
    assert.ok(registered.body.timestamp >= advanced.body.now && registered.body.timestamp <= after);
    const info = (await nubis.request('GET', '/v1.3/account/info', { token: registered.body.token })).body;
    assert.equal(info.registerdate, registered.body.timestamp);
  });

  // Issue 11: after POST /admin/clock/advance the next request sees every effect the time implies.
  test('an advance runs everything the time implies before it answers: backups per day, out of funds, mail retries, expiries', async () => {
    const smtp = await refusingSmtp();
    const moved = await startTestInstance({ SMTP_URL: smtp.url });
    try {
      const call: Call = (method, path, options = {}) => moved.request(method, path, options);
      await runClockScenario({ mover: call, reader: call, adminToken: ADMIN_TOKEN, provisionSeconds: 60 });
    } finally {
      await moved.close();
      await smtp.close();
    }
  });

  test('a bad advance is a 400 naming seconds', async () => {
    for (const body of [{ seconds: -5 }, { seconds: 'soon' }, {}]) {
      const result = await nubis.admin('POST', '/admin/clock/advance', body);
      assert.equal(result.status, 400, JSON.stringify(body));
      assert.equal(result.body.errors[0].field, 'seconds');
    }
  });

  test('with CLOCK=system the clock cannot move: 409', async () => {
    const system = await startTestInstance({ CLOCK: 'system' });
    try {
      assert.equal((await system.admin('GET', '/admin/clock')).body.mode, 'system');
      const result = await system.admin('POST', '/admin/clock/advance', { seconds: 60 });
      assert.equal(result.status, 409);
      assert.deepEqual(result.body, {
        errors: {
          response: '409 Conflict',
          reason: 'the clock is the system clock: start with CLOCK=virtual to move it',
        },
      });
    } finally {
      await system.close();
    }
  });
});

describe('reset', () => {
  test('wipes every account, token and mail; the catalog and the clock stay', async () => {
    const own = await startTestInstance();
    try {
      const account = await createAccount(own);
      await own.advance(3600);
      const clockBefore = (await own.admin('GET', '/admin/clock')).body.now;
      const result = await own.admin('POST', '/admin/reset');
      assert.equal(result.status, 200);
      assert.deepEqual(result.body, { reset: true });
      assert.deepEqual((await own.admin('GET', '/admin/accounts')).body, { accounts: [] });
      assert.deepEqual((await own.admin('GET', '/admin/outbox')).body, { messages: [] });
      assert.equal((await own.request('GET', '/v1.3/account/info', { token: account.token })).status, 401);
      assert.ok((await own.admin('GET', '/admin/clock')).body.now >= clockBefore);
      assert.ok(Object.keys((await own.request('GET', '/v1.3/region/list')).body.regions).length > 0);
      // The e-mail is free again, and a new account never reuses an old id.
      const again = await createAccount(own, { email: account.email });
      assert.ok(again.id > account.id);
      assert.equal((await mailsTo(own, account.email)).length, 1);
    } finally {
      await own.close();
    }
  });
});

describe('without ADMIN_TOKEN', () => {
  test('the operator API is off: 403 whatever the token', async () => {
    const off = await startTestInstance({ ADMIN_TOKEN: '' });
    try {
      for (const token of [ADMIN_TOKEN, null]) {
        const result = await off.request('GET', '/admin/accounts', { token });
        assert.equal(result.status, 403);
        assert.deepEqual(result.body, {
          errors: { response: '403 Forbidden', reason: 'the operator API is disabled: set ADMIN_TOKEN' },
        });
      }
    } finally {
      await off.close();
    }
  });
});
