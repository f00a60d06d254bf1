// The lists' totals (transaction/list and invoice/list meta.total) are kept on the account row by
// every insert, not counted over the account's history (migration 0017): after a mix of
// operations through every path that adds a transaction or an invoice item, each total equals
// the rows the list's pages show, and every account's kept counts equal its rows in the tables.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer } from '../../test/support/servers.ts';

let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance();
});
after(async () => {
  await nubis.close();
});

async function call(account: TestAccount, method: string, path: string, body?: unknown, expected = 200) {
  const result = await nubis.request(method, path, { token: account.token, body });
  assert.equal(result.status, expected, `${method} ${path}: ${JSON.stringify(result.body)}`);
  return result.body;
}

/** Every invoice item the list shows, page after page (start_id in steps of 25), and its total. */
async function allInvoicePages(account: TestAccount): Promise<{ ids: unknown[]; totals: number[] }> {
  const ids: unknown[] = [];
  const totals: number[] = [];
  for (let start = 0; ; start += 25) {
    const page = await call(account, 'GET', `/v1.3/invoice/list?start_id=${start}`);
    totals.push(page.meta.total);
    if (page.invoices.length === 0) return { ids, totals };
    // Items carry no id: each item's whole answer tells it apart here (no two share a resource and type).
    ids.push(...page.invoices.map((item: unknown) => JSON.stringify(item)));
  }
}

/** Each account whose kept counts differ from its rows in transactions and invoice_items. */
async function countsAstray(): Promise<unknown[]> {
  const db = nubis.running.ctx.db;
  const { rows } = await sql<{ id: number; kept_t: number; kept_i: number; rows_t: number; rows_i: number }>`
    select id, transaction_count as kept_t, invoice_item_count as kept_i,
      (select count(*) from transactions where transactions.account_id = accounts.id) as rows_t,
      (select count(*) from invoice_items where invoice_items.account_id = accounts.id) as rows_i
    from accounts`.execute(db);
  return rows.filter((row) => Number(row.kept_t) !== Number(row.rows_t) || Number(row.kept_i) !== Number(row.rows_i));
}

describe('list totals kept on the account row', () => {
  test('after credits, servers, a snapshot, a floating IP, a debit and a bank transfer, each total is what the pages show', async () => {
    const account = await createAccount(nubis, { credit: 500 });
    assert.equal((await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, { amount: '20.00' })).status, 201);
    const servers = [];
    for (let i = 0; i < 6; i++)
      servers.push(await deployServer(nubis, account.token, { hostname: `s${i}.example.com`, label: `s${i}` }));
    // A server with a backup and a licence opens several items in one create.
    servers.push(
      await deployServer(nubis, account.token, {
        hostname: 'w.example.com',
        label: 'w',
        image: 1101,
        plan: 2,
        auto_backups: true,
        ddos_protection: true,
      }),
    );
    await call(account, 'POST', '/v1.3/snapshot/create', { name: 'before', server_id: servers[0]!.uuid }, 201);
    const ip = await call(account, 'POST', '/v1.3/floating_ip/create', { region_id: 101, ip_version: 4 }, 201);
    await call(account, 'PATCH', '/v1.3/floating_ip/attach', { server_id: servers[1]!.id, ip_id: ip.uuid }, 202);
    for (const server of servers.slice(2, 5))
      await call(account, 'DELETE', `/v1.3/server/remove/${server.id}`, undefined, 204);
    assert.equal((await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, { amount: '-3.00' })).status, 201);
    await call(account, 'POST', '/v1.3/payment/bank_transfer', { amount: 50 }, 201);
    // Servers made and removed again (the account may hold ten), so the invoice list runs over more than one page.
    for (let i = 0; i < 20; i++) {
      const made = await deployServer(nubis, account.token, { hostname: `t${i}.example.com`, label: `t${i}` });
      await call(account, 'DELETE', `/v1.3/server/remove/${made.id}`, undefined, 204);
    }

    const transactions = await call(account, 'GET', '/v1.3/transaction/list');
    assert.equal(transactions.meta.total, transactions.transactions.length);
    assert.ok(transactions.meta.total >= 4, `credits, a debit and a transfer: ${transactions.meta.total}`);

    const invoices = await allInvoicePages(account);
    assert.ok(invoices.ids.length > 25, `more than one page: ${invoices.ids.length}`);
    assert.equal(new Set(invoices.ids).size, invoices.ids.length);
    for (const total of invoices.totals) assert.equal(total, invoices.ids.length);
    assert.deepEqual(await countsAstray(), []);
  });

  test('a new account shows totals of zero, and of one after its first credit', async () => {
    const account = await createAccount(nubis, { credit: 0 });
    assert.equal((await call(account, 'GET', '/v1.3/invoice/list')).meta.total, 0);
    const before = (await call(account, 'GET', '/v1.3/transaction/list')).meta.total;
    assert.equal((await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, { amount: '1.00' })).status, 201);
    assert.equal((await call(account, 'GET', '/v1.3/transaction/list')).meta.total, before + 1);
  });
});
