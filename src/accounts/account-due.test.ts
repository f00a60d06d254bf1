// account/info's billing.secondsdue and duedate for a balance that outlasts every date the API
// can write (found by the property tests: a large credit over a small burn answered 500).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount } from '../../test/support/accounts.ts';
import { orderServer } from '../../test/support/servers.ts';

let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance();
});
after(() => nubis.close());

test('a balance that lasts past year 9999 shows no due date instead of failing', async () => {
  const account = await createAccount(nubis);
  await orderServer(nubis, account.token, {});
  const billed = await nubis.request('GET', '/v1.3/account/info', { token: account.token });
  assert.equal(billed.status, 200);
  assert.equal(typeof billed.body.billing.secondsdue, 'number', 'an ordinary balance has a due date');
  assert.match(billed.body.billing.duedate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  const credited = await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, { amount: '900000000' });
  assert.equal(credited.status, 201, JSON.stringify(credited.body));
  const rich = await nubis.request('GET', '/v1.3/account/info', { token: account.token });
  assert.equal(rich.status, 200, JSON.stringify(rich.body));
  assert.ok(rich.body.billing.usage > 0, 'still billed');
  assert.equal(rich.body.billing.secondsdue, null);
  assert.equal(rich.body.billing.duedate, null);
});
