// Black-box tests of what bounds server creation: servers.limit under 50 concurrent creates,
// and a region's address pool running out (a small pool from CATALOG_FILE), then refilling.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount } from '../../test/support/accounts.ts';
import { deployServer, orderServer, SETTLE_SECONDS, standardServer } from '../../test/support/servers.ts';

let nubis: TestInstance;
let catalogDir: string;

before(async () => {
  // Region 101 gets a /29: network, gateway and broadcast leave five addresses.
  catalogDir = mkdtempSync(join(tmpdir(), 'nubis-catalog-'));
  const catalog = JSON.parse(readFileSync(new URL('../catalog/catalog.json', import.meta.url), 'utf8'));
  for (const region of catalog.regions) if (region.id === 101) region.pools.v4 = ['192.0.2.0/29'];
  const file = join(catalogDir, 'catalog.json');
  writeFileSync(file, JSON.stringify(catalog));
  nubis = await startTestInstance({ CATALOG_FILE: file });
});
after(async () => {
  await nubis.close();
  rmSync(catalogDir, { recursive: true, force: true });
});

describe('servers.limit', () => {
  test('50 concurrent creates against a limit of 5 make exactly 5 servers and bill exactly 5', async () => {
    const account = await createAccount(nubis);
    assert.equal((await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { servers_limit: 5 })).status, 200);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        nubis.request('POST', '/v1.3/server/create', {
          token: account.token,
          body: { ...standardServer, region: 201, label: `race ${i}` },
        }),
      ),
    );
    const statuses = results.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 201).length, 5, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 403).length, 45, JSON.stringify(statuses));
    for (const refused of results.filter((r) => r.status === 403))
      assert.match(refused.body.errors.reason, /servers\.limit reached: the account may have at most 5 servers/);

    const list = await nubis.request('GET', '/v1.3/server/list', { token: account.token });
    assert.equal(list.body.servers.length, 5);
    assert.deepEqual(
      new Set(list.body.servers.map((s: { uuid: string }) => s.uuid)),
      new Set(results.filter((r) => r.status === 201).map((r) => r.body.uuid)),
    );
    const info = await nubis.request('GET', '/v1.3/account/info', { token: account.token });
    assert.equal(info.body.servers.limit, 5);
    // Five servers of $0.006850 an hour are billed, not fifty; at most their first hours are charged yet.
    assert.equal(info.body.billing.usage, 0.03425);
    assert.ok(info.body.balance <= 100 && info.body.balance >= 99.96, String(info.body.balance));
    const transactions = await nubis.request('GET', '/v1.3/transaction/list', { token: account.token });
    assert.equal(transactions.body.transactions.length, 1);
  });

  test('a removed server frees its place under the limit', async () => {
    const account = await createAccount(nubis);
    await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { servers_limit: 1 });
    const first = await orderServer(nubis, account.token, { region: 201 });
    const refused = await nubis.request('POST', '/v1.3/server/create', {
      token: account.token,
      body: { ...standardServer, region: 201 },
    });
    assert.equal(refused.status, 403);
    assert.equal(
      (await nubis.request('DELETE', `/v1.3/server/remove/${first.id}`, { token: account.token })).status,
      204,
    );
    assert.equal(
      (
        await nubis.request('POST', '/v1.3/server/create', {
          token: account.token,
          body: { ...standardServer, region: 201 },
        })
      ).status,
      201,
    );
  });
});

describe('address pool', () => {
  test("runs out with a clear 409, and a removed server's address is handed out again", async () => {
    const account = await createAccount(nubis);
    const servers = [];
    for (let i = 0; i < 5; i++) servers.push(await orderServer(nubis, account.token, {}));
    const full = await nubis.request('POST', '/v1.3/server/create', { token: account.token, body: standardServer });
    assert.equal(full.status, 409);
    assert.match(full.body.errors.reason, /no free IPv4 address left in region 101/);
    assert.equal((await nubis.request('GET', '/v1.3/server/list', { token: account.token })).body.servers.length, 5);

    await nubis.advance(SETTLE_SECONDS);
    const list = await nubis.request('GET', '/v1.3/server/list', { token: account.token });
    const addresses = list.body.servers
      .map((s: { iface: { v4: { address: string }[] } }) => s.iface.v4[0]!.address)
      .sort();
    assert.deepEqual(addresses, ['192.0.2.2', '192.0.2.3', '192.0.2.4', '192.0.2.5', '192.0.2.6']);

    const victim = list.body.servers[2];
    assert.equal(
      (await nubis.request('DELETE', `/v1.3/server/remove/${victim.uuid}`, { token: account.token })).status,
      204,
    );
    const again = await deployServer(nubis, account.token);
    const info = await nubis.request('GET', `/v1.3/server/info/${again.id}`, { token: account.token });
    assert.equal(info.body.iface.v4[0].address, victim.iface.v4[0].address);
  });
});
