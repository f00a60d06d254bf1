// Black-box tests of account registration, login, activation, info, update and reset.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test/support/server.ts';
import { activationUuidFromMail, createAccount, uniqueEmail } from '../../test/support/accounts.ts';

let server: TestServer;
before(async () => { server = await startTestServer(); });
after(async () => { await server.close(); });

describe('register', () => {
  test('answers 201 with a working token, and the same status for an e-mail already registered', async () => {
    const email = uniqueEmail();
    const body = { email, password: 'correct horse', firstname: 'Ada', lastname: 'Lovelace', accept_tos: true, country: 'gb' };
    const first = await server.request('POST', '/v1.3/account/register', { body });
    assert.equal(first.status, 201);
    assert.match(first.body.token, /^[0-9a-f]{64}$/);
    assert.match(first.body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const info = await server.request('GET', '/v1.3/account/info', { token: first.body.token });
    assert.equal(info.status, 200);
    assert.equal(info.body.email, email);
    assert.equal(info.body.profile.country, 'GB');
    assert.equal(info.body.activated, false);

    const again = await server.request('POST', '/v1.3/account/register', { body: { ...body, password: 'another password' } });
    assert.equal(again.status, 201);
    assert.match(again.body.token, /^[0-9a-f]{64}$/);
    const denied = await server.request('GET', '/v1.3/account/info', { token: again.body.token });
    assert.equal(denied.status, 401);
  });

  test('names every bad field in one 400', async () => {
    const result = await server.request('POST', '/v1.3/account/register', { body: { email: 'not-an-email', password: 'short', accept_tos: false, country: 'XYZ' } });
    assert.equal(result.status, 400);
    const fields = result.body.errors.map((e: { field: string }) => e.field).sort();
    assert.deepEqual(fields, ['accept_tos', 'country', 'email', 'firstname', 'lastname', 'password']);
    for (const error of result.body.errors) assert.equal(typeof error.reason, 'string');
  });
});

describe('activation', () => {
  test('the mailed activation uuid activates; the public account uuid does not', async () => {
    const account = await createAccount(server, { activate: false });
    const byAccountUuid = await server.request('PUT', '/v1.3/account/activate', { body: { uuid: account.uuid } });
    assert.equal(byAccountUuid.status, 202);
    assert.equal((await server.request('GET', '/v1.3/account/info', { token: account.token })).body.activated, false);
    const activation = await activationUuidFromMail(server, account.email);
    assert.notEqual(activation, account.uuid);
    const result = await server.request('PUT', '/v1.3/account/activate', { body: { uuid: activation } });
    assert.equal(result.status, 202);
    assert.deepEqual(result.body, { success: { response: '202 Accepted', reason: '' } });
    assert.equal((await server.request('GET', '/v1.3/account/info', { token: account.token })).body.activated, true);
  });
});
