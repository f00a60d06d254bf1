// The request journal (issue 16): what a client sent and got back, newest first, filtered,
// with every secret masked; off unless JOURNAL_SIZE is set.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, registerBody, type TestAccount } from '../../test/support/accounts.ts';
import { standardServer } from '../../test/support/servers.ts';
import { masked } from './journal.ts';

let nubis: TestInstance;
let alice: TestAccount;

before(async () => {
  nubis = await startTestInstance({ JOURNAL_SIZE: '50' });
  alice = await createAccount(nubis);
});
after(() => nubis.close());

describe('request journal', () => {
  test('a server create is journaled with its bodies, the passwords masked', async () => {
    const created = await nubis.request('POST', '/v1.3/server/create', {
      token: alice.token,
      body: { ...standardServer, label: 'journaled' },
    });
    assert.equal(created.status, 201);
    const journal = await nubis.admin('GET', `/admin/requests?path=/v1.3/server/create&account=${alice.id}`);
    assert.equal(journal.status, 200);
    const [entry] = journal.body.requests;
    assert.equal(entry.method, 'POST');
    assert.equal(entry.status, 201);
    assert.equal(entry.account, alice.id);
    assert.equal(entry.request_id, created.headers.get('x-request-id'));
    assert.equal(entry.request_body.label, 'journaled');
    assert.equal(entry.response_body.uuid, created.body.uuid);
    const serialized = JSON.stringify(journal.body);
    for (const secret of [alice.token, alice.password, created.body.password, created.body.info?.password])
      if (secret) assert.ok(!serialized.includes(secret), 'no secret the API handed out is in the journal');
  });

  test('register and login bodies keep no password or token', async () => {
    const body = registerBody();
    const registered = await nubis.request('POST', '/v1.3/account/register', { body });
    assert.equal(registered.status, 201);
    const journal = await nubis.admin('GET', '/admin/requests?path=/v1.3/account/register&limit=1');
    const [entry] = journal.body.requests;
    assert.equal(entry.request_body.password, '***');
    assert.equal(entry.request_body.email, body.email);
    assert.equal(entry.response_body.token, '***');
    assert.ok(!JSON.stringify(journal.body).includes(registered.body.token));
  });

  test('filters by status and path prefix, newest first, up to the limit', async () => {
    await nubis.request('GET', '/v1.3/server/info/999999', { token: alice.token });
    await nubis.request('GET', '/v1.3/server/info/999998', { token: alice.token });
    const notFound = await nubis.admin('GET', '/admin/requests?status=404&path=/v1.3/server/info/*&limit=2');
    assert.deepEqual(
      notFound.body.requests.map((entry: { path: string }) => entry.path),
      ['/v1.3/server/info/999998', '/v1.3/server/info/999999'],
    );
    const one = await nubis.admin('GET', '/admin/requests?limit=1');
    assert.equal(one.body.requests.length, 1);
  });

  test('secret fields are masked at any depth', () => {
    assert.deepEqual(masked({ a: { root_password: 'x', list: [{ auth_token: 'y', name: 'n' }] }, email: 'e' }), {
      a: { root_password: '***', list: [{ auth_token: '***', name: 'n' }] },
      email: 'e',
    });
  });

  test('the journal is bounded and off by default', async () => {
    const small = await startTestInstance({ JOURNAL_SIZE: '3' });
    const off = await startTestInstance();
    try {
      for (let i = 0; i < 5; i++) await small.request('GET', '/v1.3/region/list');
      assert.equal((await small.admin('GET', '/admin/requests?limit=100')).body.requests.length, 3);
      const refused = await off.admin('GET', '/admin/requests');
      assert.equal(refused.status, 409);
      assert.match(refused.body.errors.reason, /JOURNAL_SIZE/);
    } finally {
      await Promise.all([small.close(), off.close()]);
    }
  });
});
