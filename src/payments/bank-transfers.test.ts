// Bank transfers have bounds: an account waits on at most BANK_TRANSFER_PENDING_MAX of them, a
// pending one expires after BANK_TRANSFER_EXPIRY_DAYS, the operator's list is paged newest first
// (so a newer transfer never falls off it), and paying at all needs an activated account.
// Found on main: one never-activated account made 1,040 pending transfers, and the operator's
// list showed the oldest 1,000.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';

let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance({
    BANK_TRANSFER_PENDING_MAX: '3',
    BANK_TRANSFER_EXPIRY_DAYS: '10',
    // Checkout sessions reach the simulated processor: the refusal must come before it.
    PAYMENT_PROCESSOR: 'simulated',
  });
});
after(async () => {
  await nubis?.close();
});

const askTransfer = (account: TestAccount, amount: number | string = 10) =>
  nubis.request('POST', '/v1.3/payment/bank_transfer', { token: account.token, body: { amount } });

interface Listed {
  id: string;
  account_id: number;
  pstatus: string;
}

async function transferPage(query = ''): Promise<{ transfers: Listed[]; meta: { next_before: number | null } }> {
  const page = await nubis.admin('GET', `/admin/transfers${query}`);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  return page.body;
}

async function pstatusOf(account: TestAccount, id: string): Promise<string | undefined> {
  const list = await nubis.request('GET', '/v1.3/transaction/list', { token: account.token });
  assert.equal(list.status, 200);
  return list.body.transactions.find((t: { id: string }) => t.id === id)?.pstatus;
}

describe('who may pay', () => {
  test('an account never activated gets a 403 naming activation, for a transfer and a checkout alike', async () => {
    const account = await createAccount(nubis, { activate: false });
    for (const path of ['/v1.3/payment/bank_transfer', '/v1.3/payment/checkout']) {
      const refused = await nubis.request('POST', path, { token: account.token, body: { amount: 10 } });
      assert.equal(refused.status, 403, `${path}: ${JSON.stringify(refused.body)}`);
      assert.equal(refused.body.errors.response, '403 Forbidden');
      assert.match(refused.body.errors.reason, /not activated/);
    }
    const awaited = await transferPage('?limit=1000');
    assert.equal(awaited.transfers.filter((t) => t.account_id === account.id).length, 0);
  });
});

describe('pending transfers of one account', () => {
  test('stop at the cap with a 403 naming it; one received or expired makes room again', async () => {
    const account = await createAccount(nubis, { credit: 0 });
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const asked = await askTransfer(account);
      assert.equal(asked.status, 201, JSON.stringify(asked.body));
      made.push(asked.body.transaction.id);
    }
    const over = await askTransfer(account);
    assert.equal(over.status, 403, JSON.stringify(over.body));
    assert.match(over.body.errors.reason, /at most 3 pending bank transfers/);
    // Another account is not held back by this one's.
    assert.equal((await askTransfer(await createAccount(nubis, { credit: 0 }))).status, 201);

    assert.equal((await nubis.admin('POST', `/admin/transactions/${made[0]}/received`)).status, 200);
    assert.equal((await askTransfer(account)).status, 201);
    assert.equal((await askTransfer(account)).status, 403);
  });

  test('expire after BANK_TRANSFER_EXPIRY_DAYS: shown expired, off the list, and no longer creditable', async () => {
    const account = await createAccount(nubis, { credit: 0 });
    const first = await askTransfer(account);
    assert.equal(first.status, 201);
    const id: string = first.body.transaction.id;
    await nubis.advance(9 * 86_400);
    assert.equal(await pstatusOf(account, id), 'pending');
    assert.ok((await transferPage('?limit=1000')).transfers.some((t) => t.id === id));
    await nubis.advance(2 * 86_400);
    assert.ok(!(await transferPage('?limit=1000')).transfers.some((t) => t.id === id));
    assert.equal(await pstatusOf(account, id), 'expired');
    const late = await nubis.admin('POST', `/admin/transactions/${id}/received`);
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.match(late.body.errors.reason, /expired/);
    // The expired one no longer counts against the cap.
    for (let i = 0; i < 3; i++) assert.equal((await askTransfer(account)).status, 201);
  });
});

describe("the operator's list", () => {
  test('is paged newest first with a cursor, so every transfer is reached and the newest come first', async () => {
    const accounts = await Promise.all([0, 1, 2, 3].map(() => createAccount(nubis, { credit: 0 })));
    const made: string[] = [];
    for (let round = 0; round < 3; round++)
      for (const account of accounts) {
        const asked = await askTransfer(account, 5 + round);
        assert.equal(asked.status, 201);
        made.push(asked.body.transaction.id);
      }
    const first = await transferPage('?limit=5');
    assert.equal(first.transfers.length, 5);
    assert.deepEqual(
      first.transfers.map((t) => t.id),
      made.slice(-5).reverse(),
      'the newest first',
    );
    const seen: string[] = [];
    let page = first;
    for (;;) {
      seen.push(...page.transfers.map((t) => t.id));
      assert.ok(page.transfers.every((t) => t.pstatus === 'pending'));
      if (page.meta.next_before === null) break;
      page = await transferPage(`?limit=5&before=${page.meta.next_before}`);
    }
    const ids = seen.map(Number);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
      'pages continue where the last ended',
    );
    for (const id of made) assert.ok(seen.includes(id), `transfer ${id} on some page`);
    assert.equal((await nubis.admin('GET', '/admin/transfers?limit=0')).status, 400);
    assert.equal((await nubis.admin('GET', '/admin/transfers?before=x')).status, 400);
  });
});
