// Emulator tools across instances: a fault rule added through one instance is applied by
// every instance, and each firing is counted once whichever instance served it.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { ADMIN_TOKEN, call, deployment, fundedAccount, type Deployment, type Instance } from './instances.ts';

let deploy: Deployment;
let a: Instance;
let b: Instance;

before(async () => {
  deploy = await deployment({ env: { RATE_ACCOUNT_INFO_PER_MINUTE: '1000' } });
  [a, b] = await Promise.all([deploy.start(), deploy.start()]);
});
after(async () => {
  await deploy.close();
});

describe('fault rules on two instances', () => {
  test('the next N matching requests fail once in all, on whichever instance serves them', async () => {
    const account = await fundedAccount(a.url, 10);
    const added = await call(a.url, 'POST', '/admin/faults', {
      token: ADMIN_TOKEN,
      body: { match: { path: '/v1.3/account/info' }, action: { status: 503 }, times: 6 },
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    // Each instance rereads the rules at most a second after its last read.
    await sleep(1_100);
    const faultedOn = { a: 0, b: 0 };
    let ok = 0;
    for (let i = 0; i < 12; i++) {
      const [name, instance] = i % 2 === 0 ? (['a', a] as const) : (['b', b] as const);
      const answer = await call(instance.url, 'GET', '/v1.3/account/info', { token: account.token });
      if (answer.status === 503) {
        assert.equal(answer.headers.get('nubis-fault'), String(added.body.id));
        faultedOn[name]++;
      } else {
        assert.equal(answer.status, 200);
        ok++;
      }
    }
    assert.equal(faultedOn.a + faultedOn.b, 6);
    assert.ok(faultedOn.a > 0 && faultedOn.b > 0, `both instances applied the rule: ${JSON.stringify(faultedOn)}`);
    assert.equal(ok, 6);
    const listed = await call(b.url, 'GET', '/admin/faults', { token: ADMIN_TOKEN });
    assert.deepEqual(
      listed.body.faults.map((rule: { fired: number; remaining: number }) => [rule.fired, rule.remaining]),
      [[6, 0]],
    );
  });
});
