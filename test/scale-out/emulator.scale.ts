// Emulator tools across instances and databases: a fault rule added through one instance is
// applied by every instance, each firing counted once; a state saved on SQLite loads on
// PostgreSQL and back, and every list answers the same.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { ADMIN_TOKEN, call, deployment, fundedAccount, type Deployment, type Instance } from './instances.ts';
import { startTestInstance } from '../support/instance.ts';
import { createAccount } from '../support/accounts.ts';
import { accountViews, furnish } from '../support/state-views.ts';
import { deployServer } from '../support/servers.ts';

let deploy: Deployment;
let a: Instance;
let b: Instance;

before(async () => {
  // A test deployment (CLOCK=virtual): emulator tools are refused in production.
  deploy = await deployment({ env: { RATE_ACCOUNT_INFO_PER_MINUTE: '1000', CLOCK: 'virtual' } });
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

describe('saved states across databases', () => {
  test('a state exported from SQLite loads on PostgreSQL, and back, with every list the same', async () => {
    // Tokens and sealed secrets open only under the key that sealed them: both share one.
    const env = { SECRET_KEY: 'a-shared-secret-key-of-at-least-32-characters' };
    const [sqlite, postgres] = await Promise.all([
      startTestInstance(env, { db: 'sqlite' }),
      startTestInstance(env, { db: 'postgres' }),
    ]);
    try {
      const accounts = await Promise.all([createAccount(sqlite), createAccount(sqlite)]);
      for (const account of accounts) await furnish(sqlite, account.token);
      const views = async (nubis: typeof sqlite) =>
        Promise.all(accounts.map((account) => accountViews(nubis, account.token)));

      const fromSqlite = await sqlite.admin('POST', '/admin/state/export');
      const onPostgres = await postgres.admin('POST', '/admin/state/import', fromSqlite.body);
      assert.equal(onPostgres.status, 200, JSON.stringify(onPostgres.body));
      const [left, right] = [await views(postgres), await views(sqlite)];
      for (const [i, view] of left.entries())
        for (const key of Object.keys(view)) assert.deepEqual(view[key], right[i][key], key);

      // Changed on PostgreSQL (new ids from its own sequences), then carried back to SQLite.
      const made = await deployServer(postgres, accounts[0].token, { label: 'made on postgres' });
      const fromPostgres = await postgres.admin('POST', '/admin/state/export');
      const onSqlite = await sqlite.admin('POST', '/admin/state/import', fromPostgres.body);
      assert.equal(onSqlite.status, 200, JSON.stringify(onSqlite.body));
      const back = await views(sqlite);
      assert.deepEqual(back, await views(postgres));
      assert.ok(
        (back[0]['/v1.3/server/list'] as { servers: { uuid: string }[] }).servers.some(
          (server) => server.uuid === made.uuid,
        ),
      );
    } finally {
      await Promise.all([sqlite.close(), postgres.close()]);
    }
  });
});
