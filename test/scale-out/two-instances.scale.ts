// Two Nubis instances on one PostgreSQL and one Redis: any instance answers any request,
// limits and money hold across them, rate limits are one budget, sweeps do each piece once.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, call, deployment, fundedAccount, type Deployment, type Instance } from './instances.ts';

let deploy: Deployment;
let a: Instance;
let b: Instance;
const serverBody = { hostname: 'web-1.example.com', label: 'web 1', region: 101, image: 1001, plan: 1 };

before(async () => {
  deploy = await deployment({ env: { RATE_ACCOUNT_INFO_PER_MINUTE: '30' } });
  // Started together: they race to migrate the same fresh schema, as a rolling deploy would.
  [a, b] = await Promise.all([deploy.start(), deploy.start()]);
});
after(async () => {
  await deploy.close();
});

async function hourlyMicros(): Promise<number> {
  const plans = await call(a.url, 'GET', '/v1.3/plan/list');
  return Math.round(plans.body.plans['1'].price_hourly * 1_000_000);
}

describe('two instances', () => {
  test('what one instance writes, the other reads at once', async () => {
    const account = await fundedAccount(a.url, 10);
    const created = await call(a.url, 'POST', '/v1.3/server/create', { token: account.token, body: serverBody });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const listed = await call(b.url, 'GET', '/v1.3/server/list', { token: account.token });
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.servers.map((s: { uuid: string }) => s.uuid),
      [created.body.uuid],
    );
    const info = await call(b.url, 'GET', `/v1.3/server/info/${created.body.uuid}`, { token: account.token });
    assert.equal(info.status, 200);
    assert.equal(
      info.body.info.password,
      created.body.info.password,
      'both instances decrypt with the shared SECRET_KEY',
    );
  });

  test('a token removed through one instance is refused by the other at once', async () => {
    const account = await fundedAccount(a.url, 0);
    const second = await call(a.url, 'POST', '/v1.3/account/token_create', {
      token: account.token,
      body: { name: 'doomed' },
    });
    assert.equal(second.status, 201);
    assert.equal((await call(b.url, 'GET', '/v1.3/account/token_list', { token: second.body.token })).status, 200);
    const removed = await call(a.url, 'DELETE', `/v1.3/account/token_remove/${second.body.uuid}`, {
      token: account.token,
    });
    assert.equal(removed.status, 204);
    const refused = await call(b.url, 'GET', '/v1.3/account/token_list', { token: second.body.token });
    assert.equal(refused.status, 401);
    assert.deepEqual(Object.keys(refused.body.errors).sort(), ['reason', 'response']);
  });

  test('an account blocked through one instance is refused by the other at once, and unblocked likewise', async () => {
    const account = await fundedAccount(a.url, 10);
    const create = () =>
      call(b.url, 'POST', '/v1.3/server/create', { token: account.token, body: { ...serverBody, label: 'blocked?' } });
    // Instance b has the account's actor cached from these.
    for (let i = 0; i < 3; i++)
      assert.equal((await call(b.url, 'GET', '/v1.3/account/info', { token: account.token })).status, 200);
    await call(a.url, 'PATCH', `/admin/accounts/${account.id}`, { token: ADMIN_TOKEN, body: { blocked: true } });
    assert.equal((await create()).status, 403);
    await call(a.url, 'PATCH', `/admin/accounts/${account.id}`, { token: ADMIN_TOKEN, body: { blocked: false } });
    assert.equal((await create()).status, 201);
  });

  test('concurrent creates on both instances never pass servers.limit', async () => {
    const account = await fundedAccount(a.url, 10);
    await call(a.url, 'PATCH', `/admin/accounts/${account.id}`, { token: ADMIN_TOKEN, body: { servers_limit: 5 } });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(i % 2 ? a.url : b.url, 'POST', '/v1.3/server/create', {
          token: account.token,
          body: { ...serverBody, label: `s${i}` },
        }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 5, `statuses: ${statuses.join(',')}`);
    assert.equal(statuses.filter((s) => s === 403).length, 35, `statuses: ${statuses.join(',')}`);
    const listed = await call(b.url, 'GET', '/v1.3/server/list', { token: account.token });
    assert.equal(listed.body.servers.length, 5);
    const hourly = await hourlyMicros();
    const expected = 10_000_000 - 5 * hourly;
    const info = await call(a.url, 'GET', '/v1.3/account/info', { token: account.token });
    assert.equal(
      Math.round(info.body.balance * 100),
      Math.round(expected / 10_000),
      `balance ${info.body.balance}, expected ${expected} micro-dollars`,
    );
  });

  test('concurrent creates on both instances never spend money the account does not have', async () => {
    const hourly = await hourlyMicros();
    // Enough for exactly three first hours, and one micro-dollar more.
    const credit = ((3 * hourly + 1) / 1_000_000).toFixed(6);
    const account = await fundedAccount(a.url, credit);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 ? a.url : b.url, 'POST', '/v1.3/server/create', {
          token: account.token,
          body: { ...serverBody, label: `m${i}` },
        }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 3, `statuses: ${statuses.join(',')}`);
    assert.equal(statuses.filter((s) => s === 402).length, 17, `statuses: ${statuses.join(',')}`);
    const invoices = await call(b.url, 'GET', '/v1.3/invoice/list', { token: account.token });
    assert.equal(
      invoices.body.invoices.filter((item: { resource_type: string }) => item.resource_type === 'server').length,
      3,
    );
  });

  test('one token has one rate-limit budget across both instances', async () => {
    const account = await fundedAccount(a.url, 0);
    // account/info allows 30 a minute per token in this deployment; fundedAccount spent one.
    const statuses: number[] = [];
    for (let i = 0; i < 32; i++)
      statuses.push((await call(i % 2 ? a.url : b.url, 'GET', '/v1.3/account/info', { token: account.token })).status);
    assert.deepEqual(statuses.slice(0, 29), Array(29).fill(200));
    assert.deepEqual(statuses.slice(29), [429, 429, 429]);
    const limited = await call(a.url, 'GET', '/v1.3/account/info', { token: account.token });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  });

  test('sweeps run on both instances at once take each backup once', async () => {
    const account = await fundedAccount(a.url, 10);
    const servers = await Promise.all(
      [0, 1, 2].map((i) =>
        call(i % 2 ? a.url : b.url, 'POST', '/v1.3/server/create', {
          token: account.token,
          body: { ...serverBody, label: `b${i}`, auto_backups: true },
        }),
      ),
    );
    for (const server of servers) assert.equal(server.status, 201, JSON.stringify(server.body));
    // Provisioning takes SIM_PROVISION_SECONDS=1 in this deployment: read until each shows it ended
    // (a read records the end), bounded, rather than wait a fixed time.
    for (const server of servers)
      for (const end = Date.now() + 60_000; ; await new Promise((resolve) => setTimeout(resolve, 50))) {
        const info = await call(a.url, 'GET', `/v1.3/server/info/${server.body.uuid}`, { token: account.token });
        if ((info.body.server ?? info.body).power === 'running') break;
        assert.ok(Date.now() < end, `server ${server.body.uuid} never left provisioning: ${JSON.stringify(info.body)}`);
      }
    const codes = await Promise.all([deploy.sweepOnce(), deploy.sweepOnce(), deploy.sweepOnce()]);
    assert.deepEqual(codes, [0, 0, 0]);
    assert.equal(await deploy.sweepOnce(), 0);
    const snapshots = await call(b.url, 'GET', '/v1.3/snapshot/list', { token: account.token });
    const backups = snapshots.body.snapshots.filter((s: { type: string }) => s.type === 'backup');
    assert.equal(backups.length, 3, JSON.stringify(snapshots.body));
    assert.deepEqual(
      backups.map((s: { server_id: string }) => s.server_id).sort(),
      servers.map((s) => s.body.uuid).sort(),
    );
  });
});
