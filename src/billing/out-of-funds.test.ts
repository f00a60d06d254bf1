// The out-of-funds policy: when the balance reaches zero the sweep marks the account, powers its
// servers off and mails it once; billable creates answer 402; a credit lifts the mark. Run twice,
// and concurrently (on PostgreSQL also from two instances), the sweep leaves the same ledger.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, testDb, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, mailsTo, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, serverInfo } from '../../test/support/servers.ts';
import { createPlatform, prepareStorage } from '../instance.ts';
import type { Platform } from '../platform/context.ts';
import { sweepOutOfFunds } from '../servers/out-of-funds.sweep.ts';

const HOUR = 3600;
const silent = { info() {}, warn() {}, error() {} };

let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance();
});
after(async () => {
  await nubis.close();
});

/** Everything the ledger holds for the account, as the API shows it. */
async function ledger(account: TestAccount) {
  const [transactions, invoices, info] = await Promise.all([
    nubis.request('GET', '/v1.3/transaction/list', { token: account.token }),
    nubis.request('GET', '/v1.3/invoice/list', { token: account.token }),
    nubis.request('GET', '/v1.3/account/info', { token: account.token }),
  ]);
  return { transactions: transactions.body, invoices: invoices.body, balance: info.body.balance };
}

async function outOfFundsMails(account: TestAccount) {
  return (await mailsTo(nubis, account.email)).filter((mail) => /balance has run out/.test(mail.subject));
}

/** A second instance on the same database: its own storage, clock and context. */
async function secondInstance(): Promise<{ ctx: Platform; close(): Promise<void> }> {
  const storage = await prepareStorage(nubis.config, silent);
  const ctx = await createPlatform(nubis.config, storage, silent);
  return { ctx, close: () => storage.close() };
}

describe('out of funds', () => {
  test('the sweep marks, powers off and mails once, however often and however many run it; the ledger is untouched', async () => {
    const ctx = nubis.running.ctx;
    // $0.10 buys twelve hours of a $5 server with backups (0.006850 + 0.001370 = 0.008220 an hour).
    const account = await createAccount(nubis, { credit: '0.10' });
    const bystander = await createAccount(nubis, { credit: 50 });
    const created = await deployServer(nubis, account.token, { auto_backups: true });
    const spared = await deployServer(nubis, bystander.token);
    assert.equal((await serverInfo(nubis, account.token, created.id)).power, 'running');

    const early = await sweepOutOfFunds(ctx);
    assert.deepEqual(early.suspended, []);
    assert.equal((await outOfFundsMails(account)).length, 0);

    // Twelve started hours (12 × 0.00822 = 0.09864) leave a little; an operator debit of $0.05
    // then takes the balance below zero without the clock moving (a clock advance would run the
    // sweep itself, at the instant the balance reached zero: see the virtual clock's tests).
    await nubis.advance(11 * HOUR + 20 * 60);
    assert.equal((await ledger(account)).balance, 0);
    assert.equal((await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, { amount: '-0.05' })).status, 201);
    const before = await ledger(account);
    assert.equal(before.balance, -0.05);
    const info = await nubis.request('GET', '/v1.3/account/info', { token: account.token });
    assert.equal(info.body.billing.secondsdue, 0);
    assert.equal(info.body.servers.running, 1);

    // The first round races: two sweeps on this instance and, on PostgreSQL, two more instances.
    const others = testDb === 'postgres' ? await Promise.all([secondInstance(), secondInstance()]) : [];
    try {
      const reports = await Promise.all([
        sweepOutOfFunds(ctx),
        sweepOutOfFunds(ctx),
        ...others.map((other) => sweepOutOfFunds(other.ctx)),
      ]);
      assert.deepEqual(
        reports.flatMap((r) => r.suspended),
        [account.id],
        'exactly one sweeper marks the account',
      );
      assert.equal(
        reports.reduce((sum, r) => sum + r.serversStopped, 0),
        1,
      );
    } finally {
      await Promise.all(others.map((other) => other.close()));
    }
    // Then two more rounds, one after the other.
    for (let i = 0; i < 2; i++)
      assert.deepEqual(await sweepOutOfFunds(ctx), { suspended: [], lifted: [], serversStopped: 0 });

    assert.deepEqual(await ledger(account), before);
    const mails = await outOfFundsMails(account);
    assert.equal(mails.length, 1);
    assert.match(mails[0]!.text, /powered off your 1 running server/);
    assert.equal((await serverInfo(nubis, account.token, created.id)).power, 'stopped');
    assert.equal((await nubis.request('GET', '/v1.3/account/info', { token: account.token })).body.servers.running, 0);
    // Another account's server is none of the sweep's business.
    assert.equal((await serverInfo(nubis, bystander.token, spared.id)).power, 'running');
    assert.equal((await outOfFundsMails(bystander)).length, 0);
  });

  test('billable creates answer 402 while out of funds; a server started anyway is powered off again', async () => {
    const ctx = nubis.running.ctx;
    const account = await createAccount(nubis, { credit: '0.10' });
    const created = await deployServer(nubis, account.token);
    await nubis.advance(15 * HOUR);
    await sweepOutOfFunds(ctx);

    const attempts: [string, string, unknown][] = [
      ['POST', '/v1.3/server/create', { hostname: 'b.example.com', label: 'b', region: 101, image: 1001, plan: 1 }],
      ['POST', '/v1.3/server/resize', { server_id: created.id, plan_id: 2 }],
      ['POST', '/v1.3/snapshot/create', { name: 'snap', server_id: created.id }],
      ['POST', '/v1.3/floating_ip/create', { region_id: 101, ip_version: 4 }],
      ['POST', '/v1.3/vpc/create', { region_id: 101, name: 'net' }],
    ];
    for (const [method, path, body] of attempts) {
      const result = await nubis.request(method, path, { token: account.token, body });
      assert.equal(result.status, 402, `${path}: ${JSON.stringify(result.body)}`);
      assert.equal(result.body.errors.response, '402 Payment Required');
      assert.match(result.body.errors.reason, /not enough funds/);
    }

    const started = await nubis.request('PATCH', '/v1.3/server/start', {
      token: account.token,
      body: { server_id: created.id },
    });
    if (started.status === 202) {
      await nubis.advance(120);
      await sweepOutOfFunds(ctx);
      assert.equal((await serverInfo(nubis, account.token, created.id)).power, 'stopped');
    } else {
      assert.equal(started.status, 402);
    }
    assert.equal((await outOfFundsMails(account)).length, 1);
  });

  test('a credit lifts the mark at once; servers stay off until started; running out again mails again', async () => {
    const ctx = nubis.running.ctx;
    const account = await createAccount(nubis, { credit: '0.10' });
    const created = await deployServer(nubis, account.token);
    // The advance runs the sweep when the balance reaches zero: the account is marked by the time it answers.
    await nubis.advance(15 * HOUR + 10 * 60);
    assert.deepEqual((await sweepOutOfFunds(ctx)).suspended, []);
    assert.equal((await outOfFundsMails(account)).length, 1);
    assert.equal((await serverInfo(nubis, account.token, created.id)).power, 'stopped');

    const credited = await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, { amount: 1 });
    assert.equal(credited.status, 201);
    const report = await sweepOutOfFunds(ctx);
    assert.deepEqual(report.lifted, [], 'the credit itself lifted the mark');
    assert.deepEqual(report.suspended, []);
    assert.equal((await serverInfo(nubis, account.token, created.id)).power, 'stopped');
    const ip = await nubis.request('POST', '/v1.3/floating_ip/create', {
      token: account.token,
      body: { region_id: 101, ip_version: 4 },
    });
    assert.equal(ip.status, 201, JSON.stringify(ip.body));
    const start = await nubis.request('PATCH', '/v1.3/server/start', {
      token: account.token,
      body: { server_id: created.id },
    });
    assert.equal(start.status, 202);
    await nubis.advance(120);
    await sweepOutOfFunds(ctx);
    assert.equal((await serverInfo(nubis, account.token, created.id)).power, 'running');
    assert.equal((await outOfFundsMails(account)).length, 1);

    // $1 more lasts about 90 hours of server and floating IP (0.00685 + 0.00411 an hour).
    await nubis.advance(100 * HOUR);
    assert.deepEqual((await sweepOutOfFunds(ctx)).suspended, []);
    assert.equal((await outOfFundsMails(account)).length, 2);
    assert.equal((await serverInfo(nubis, account.token, created.id)).power, 'stopped');
  });

  test('a round looks again when the ledger changes, not only when its forecast said', async () => {
    const ctx = nubis.running.ctx;
    // $0.20 lasts about 29 hours of one $5 server (0.00685 an hour): the round's forecast.
    const account = await createAccount(nubis, { credit: '0.20' });
    const first = await deployServer(nubis, account.token);
    assert.deepEqual((await sweepOutOfFunds(ctx)).suspended, []);
    // Four more servers burn five times as fast: the balance reaches zero after about 6 hours,
    // long before the first forecast. Opening their items must put the account before the sweep.
    for (let i = 0; i < 4; i++) await deployServer(nubis, account.token, { label: `more-${i}` });
    await nubis.advance(10 * HOUR);
    await sweepOutOfFunds(ctx);
    assert.equal((await outOfFundsMails(account)).length, 1);
    assert.equal((await serverInfo(nubis, account.token, first.id)).power, 'stopped');
  });

  test('an account with nothing billed is never marked, whatever its balance', async () => {
    const ctx = nubis.running.ctx;
    const account = await createAccount(nubis, { credit: 0 });
    await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, { amount: -1 });
    const report = await sweepOutOfFunds(ctx);
    assert.ok(!report.suspended.includes(account.id));
    assert.equal((await outOfFundsMails(account)).length, 0);
  });
});
