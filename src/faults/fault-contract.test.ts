// An injected failure keeps the contract: a rule's 4xx fires only on operations that document
// that status. Found by the fuzzer with a rule on every path: ssh_key/rename answered 403 (the
// specification lists rename among the operations that never answer 403) and account/update 404.
// A 5xx is an outage, which any operation may meet: it fires everywhere its rule matches.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { ecdsaPublicKey } from '../../test/support/servers.ts';

let nubis: TestInstance;
let alice: TestAccount;
before(async () => {
  nubis = await startTestInstance();
  alice = await createAccount(nubis);
});
after(() => nubis.close());

async function withRule<T>(action: Record<string, unknown>, run: () => Promise<T>): Promise<T> {
  const added = await nubis.admin('POST', '/admin/faults', { match: { path: '/v1.3/*' }, action });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  try {
    return await run();
  } finally {
    assert.equal((await nubis.admin('DELETE', `/admin/faults/${added.body.id}`)).status, 204);
  }
}

test('a rule for every path answers its 4xx only where the operation documents it', async () => {
  const key = await nubis.request('POST', '/v1.3/ssh_key/create', {
    token: alice.token,
    body: { name: 'k', public_key: ecdsaPublicKey() },
  });
  assert.equal(key.status, 201);
  const rename = () =>
    nubis.request('PATCH', '/v1.3/ssh_key/rename', { token: alice.token, body: { uuid: key.body.uuid, name: 'r' } });
  const update = () =>
    nubis.request('PATCH', '/v1.3/account/update', { token: alice.token, body: { firstname: 'Alice' } });

  await withRule({ status: 403 }, async () => {
    const renamed = await rename();
    assert.equal(renamed.status, 202, `rename never answers 403: ${JSON.stringify(renamed.body)}`);
    const created = await nubis.request('POST', '/v1.3/ssh_key/create', {
      token: alice.token,
      body: { name: 'k2', public_key: ecdsaPublicKey() },
    });
    assert.equal(created.status, 403, 'ssh_key/create documents 403: the rule fires there');
    assert.ok(created.headers.get('nubis-fault'));
  });
  await withRule({ status: 404 }, async () => {
    const updated = await update();
    assert.equal(updated.status, 202, `account/update never answers 404: ${JSON.stringify(updated.body)}`);
    assert.equal((await rename()).status, 404, 'rename documents 404');
  });
  await withRule({ status: 500 }, async () => {
    assert.equal((await rename()).status, 500, 'an outage may meet any operation');
  });
});
