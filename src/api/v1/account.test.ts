// Black-box tests of the legacy account operations: account/info in its own field names, the
// same figures as v1.3, and createkey (a token of the account, valid on both versions).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../../test/support/accounts.ts';
import { deployServer, SETTLE_SECONDS } from '../../../test/support/servers.ts';
import { v1, v13 } from '../../../test/support/protocols.ts';

let nubis: TestInstance;
let alice: TestAccount;

before(async () => {
  nubis = await startTestInstance({ SERVERS_LIMIT: '7', BLOCKED_PORTS_UDP: '53,123' });
  alice = await createAccount(nubis);
});
after(async () => {
  await nubis.close();
});

// The legacy document: "registerdate, lastlogin | string timestamps, shaped YYYY-MM-DDTHH:MM:SSz".
const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dz$/;
const legacy = (iso: string) => iso.replace(/Z$/, 'z');
const legacyInfo = (token: string) => nubis.request('GET', '/v1/account/info', { token });
const currentInfo = async (token: string) => (await nubis.request('GET', '/v1.3/account/info', { token })).body;

describe('account/info', () => {
  test('the legacy field names, with the figures v1.3 shows', async () => {
    const result = await legacyInfo(alice.token);
    assert.equal(result.status, 200);
    const info = result.body;
    assert.deepEqual(Object.keys(info).sort(), [
      'ID',
      'activated',
      'balance',
      'blocked_ports',
      'lastlogin',
      'registerdate',
      'servers',
      'smtp_allowed',
    ]);
    const current = await currentInfo(alice.token);
    assert.equal(info.ID, current.id);
    assert.equal(info.balance, '100.00');
    assert.equal(info.activated, true);
    assert.equal(info.smtp_allowed, false);
    assert.deepEqual(info.blocked_ports, { TCP: [25, 465, 587], UDP: [53, 123] });
    assert.deepEqual(info.servers, { limit: 7, running: 0 });
    assert.match(info.registerdate, iso);
    assert.match(info.lastlogin, iso);
    assert.equal(info.registerdate, legacy(current.registerdate));
    assert.equal(info.lastlogin, legacy(current.lastlogin));
  });

  test('balance and servers.running follow what either version does', async () => {
    const bob = await createAccount(nubis);
    await deployServer(nubis, bob.token);
    assert.equal(
      (
        await nubis.request('POST', '/v1/server/create', {
          token: bob.token,
          form: { hostname: 'b.example.com', OSID: 1001, DCID: 101, PLAN: 3 },
        })
      ).status,
      200,
    );
    await nubis.advance(SETTLE_SECONDS);
    const [legacy, current] = await Promise.all([v1(nubis).account(bob.token), v13(nubis).account(bob.token)]);
    assert.deepEqual(legacy, current);
    assert.equal(legacy.serversRunning, 2);
    assert.ok(legacy.balance < 100, 'the servers are billed');
    const raw = (await legacyInfo(bob.token)).body.balance;
    assert.match(raw, /^\d+\.\d\d$/, 'a numeric string with cents');
    assert.equal(Number(raw), current.balance);
  });

  test("smtp_allowed and activated show the account's flags", async () => {
    const carol = await createAccount(nubis, { activate: false });
    assert.equal((await legacyInfo(carol.token)).body.activated, false);
    assert.equal(
      (await nubis.admin('PATCH', `/admin/accounts/${carol.id}`, { smtp: true, activated: true })).status,
      200,
    );
    const info = (await legacyInfo(carol.token)).body;
    assert.equal(info.smtp_allowed, true);
    assert.equal(info.activated, true);
  });

  test('401 envelope without a key; the key works with or without the Bearer prefix', async () => {
    const missing = await nubis.request('GET', '/v1/account/info');
    assert.equal(missing.status, 401);
    assert.deepEqual(Object.keys(missing.body).sort(), ['message', 'response_code', 'response_type']);
    assert.equal(missing.body.response_type, 'error');
    assert.equal(missing.body.response_code, 401);
    assert.equal(
      (await nubis.request('GET', '/v1/account/info', { headers: { authorization: alice.token } })).status,
      200,
    );
    assert.equal(
      (await nubis.request('GET', '/v1/account/info', { headers: { authorization: `Bearer ${alice.token}` } })).status,
      200,
    );
    assert.equal(
      (await nubis.request('GET', '/v1/account/info', { headers: { authorization: `${alice.token}x` } })).status,
      401,
    );
  });
});

describe('account/createkey', () => {
  test('the message is the new key, a bare word; it is a token listed by v1.3 and works on both versions', async () => {
    const result = await nubis.request('GET', '/v1/account/createkey', { token: alice.token });
    assert.equal(result.status, 200);
    assert.deepEqual(Object.keys(result.body).sort(), ['message', 'response_code', 'response_type']);
    assert.equal(result.body.response_type, 'success');
    assert.equal(result.body.response_code, 200);
    const key: string = result.body.message;
    assert.match(key, /^\S{16,}$/);
    assert.notEqual(key, alice.token);

    const tokens = (await nubis.request('GET', '/v1.3/account/token_list', { token: alice.token })).body.tokens;
    const listed = tokens.find((t: { auth_token: string }) => t.auth_token === key);
    assert.ok(listed, '/v1.3/account/token_list lists the key');
    assert.match(listed.name, /createkey/);

    assert.equal((await nubis.request('GET', '/v1.3/account/info', { token: key })).body.id, alice.id);
    assert.equal(
      (await nubis.request('GET', '/v1/account/info', { headers: { authorization: key } })).body.ID,
      alice.id,
    );

    // Removed through v1.3, it stops working on v1.
    assert.equal(
      (await nubis.request('DELETE', `/v1.3/account/token_remove/${listed.uuid}`, { token: alice.token })).status,
      204,
    );
    assert.equal((await nubis.request('GET', '/v1/account/info', { headers: { authorization: key } })).status, 401);
  });

  test('a token from v1.3 token_create works as a v1 API key, bare or with Bearer', async () => {
    const created = await nubis.request('POST', '/v1.3/account/token_create', {
      token: alice.token,
      body: { name: 'ci' },
    });
    assert.equal(created.status, 201);
    assert.equal(
      (await nubis.request('GET', '/v1/reservedip/list', { headers: { authorization: created.body.token } })).status,
      200,
    );
    assert.equal((await nubis.request('GET', '/v1/server/list', { token: created.body.token })).status, 200);
  });

  test('allowed before activation (as token_create); a 403 envelope for a blocked account', async () => {
    const dave = await createAccount(nubis, { activate: false });
    assert.equal((await nubis.request('GET', '/v1/account/createkey', { token: dave.token })).status, 200);
    assert.equal((await nubis.admin('PATCH', `/admin/accounts/${dave.id}`, { blocked: true })).status, 200);
    const blocked = await nubis.request('GET', '/v1/account/createkey', { token: dave.token });
    assert.equal(blocked.status, 403);
    assert.equal(blocked.body.response_type, 'error');
    assert.equal(blocked.body.response_code, 403);
    assert.match(blocked.body.message, /blocked/);
  });
});

describe('rate limits', () => {
  let limited: TestInstance;
  before(async () => {
    limited = await startTestInstance({ RATE_ACCOUNT_INFO_PER_MINUTE: '2' });
  });
  after(async () => {
    await limited.close();
  });

  test('account/info shares one budget with v1.3; the 429 is an envelope with Retry-After', async () => {
    const erin = await createAccount(limited); // its set-up read account/info once through v1.3
    assert.equal((await limited.request('GET', '/v1/account/info', { token: erin.token })).status, 200);
    const refused = await limited.request('GET', '/v1/account/info', { token: erin.token });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.response_type, 'error');
    assert.equal(refused.body.response_code, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal((await limited.request('GET', '/v1.3/account/info', { token: erin.token })).status, 429);
  });
});
