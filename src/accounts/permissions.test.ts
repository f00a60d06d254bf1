// The 403 rule end to end: an account that is not activated, blocked, or without a permission
// may read but not create billable resources; the operator's flags switch each on and off.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount } from '../../test/support/accounts.ts';
import { standardServer } from '../../test/support/servers.ts';

let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance();
});
after(async () => {
  await nubis.close();
});

const createServer = (token: string) => nubis.request('POST', '/v1.3/server/create', { token, body: standardServer });

async function readsStillWork(token: string): Promise<void> {
  assert.equal((await nubis.request('GET', '/v1.3/account/info', { token })).status, 200);
  assert.equal((await nubis.request('GET', '/v1.3/server/list', { token })).status, 200);
  assert.equal((await nubis.request('GET', '/v1.3/account/token_list', { token })).status, 200);
}

describe('403 for an account that lacks permission', () => {
  test("not activated: reads work, a billable create is 403 in the spec's shape until the operator activates it", async () => {
    const account = await createAccount(nubis, { activate: false, credit: 100 });
    const refused = await createServer(account.token);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, {
      errors: {
        response: '403 Forbidden',
        reason:
          'the account is not activated: use the activation uuid from the activation mail first (PUT /v1.3/account/activate)',
      },
    });
    await readsStillWork(account.token);

    await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { activated: true });
    assert.equal((await createServer(account.token)).status, 201);
  });

  test('blocked: reads work, creates and profile changes are 403, until unblocked', async () => {
    const account = await createAccount(nubis);
    await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { blocked: true });
    const refused = await createServer(account.token);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, {
      errors: { response: '403 Forbidden', reason: 'the account is blocked; contact support' },
    });
    assert.equal(
      (await nubis.request('PATCH', '/v1.3/account/update', { token: account.token, body: { firstname: 'X' } })).status,
      403,
    );
    await readsStillWork(account.token);

    await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { blocked: false });
    assert.equal((await createServer(account.token)).status, 201);
  });

  test('a permission turned off refuses its resource only', async () => {
    const account = await createAccount(nubis);
    await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { permissions: { servers: false } });
    const refused = await createServer(account.token);
    assert.equal(refused.status, 403);
    assert.deepEqual(refused.body, {
      errors: { response: '403 Forbidden', reason: 'the account lacks the servers permission' },
    });
    assert.equal(
      (
        await nubis.request('POST', '/v1.3/account/token_create', {
          token: account.token,
          body: { name: 'still fine' },
        })
      ).status,
      201,
    );
    await readsStillWork(account.token);

    await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { permissions: { servers: true } });
    assert.equal((await createServer(account.token)).status, 201);
  });
});
