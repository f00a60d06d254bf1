// Black-box tests of reverse DNS (rdns/get, rdns/put with the `ip` extension) and server
// options (option/get, option/set, the spec's spellings, the text null).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, orderServer, serverInfo } from '../../test/support/servers.ts';

let nubis: TestInstance;
let alice: TestAccount;
let bob: TestAccount;

before(async () => {
  nubis = await startTestInstance();
  [alice, bob] = await Promise.all([createAccount(nubis), createAccount(nubis)]);
});
after(async () => {
  await nubis.close();
});

describe('reverse DNS', () => {
  test('rdns/get answers 202 with the primary address and its name: the hostname until set', async () => {
    const s = await deployServer(nubis, alice.token, { hostname: 'mail.example.com' });
    const info = await serverInfo(nubis, alice.token, s.id);
    const result = await nubis.request('GET', `/v1.3/rdns/get/${s.id}`, { token: alice.token });
    assert.equal(result.status, 202);
    assert.deepEqual(result.body, {
      success: { response: '202 Accepted', reason: '' },
      ip: info.iface.v4[0].address,
      rdns: 'mail.example.com',
    });
  });

  test("rdns/put sets the primary address's name, shown by rdns/get and in iface", async () => {
    const s = await deployServer(nubis, alice.token);
    const put = await nubis.request('PUT', '/v1.3/rdns/put', {
      token: alice.token,
      body: { server_id: s.uuid, rdns: 'www.example.org' },
    });
    assert.equal(put.status, 202);
    assert.deepEqual(put.body, { success: { response: '202 Accepted', reason: '' } });
    assert.equal(
      (await nubis.request('GET', `/v1.3/rdns/get/${s.uuid}`, { token: alice.token })).body.rdns,
      'www.example.org',
    );
    assert.equal((await serverInfo(nubis, alice.token, s.id)).iface.v4[0].reverse, 'www.example.org');
  });

  test("the ip extension names the server's IPv6, in any spelling", async () => {
    const s = await deployServer(nubis, alice.token, { ipv6_networking: true, hostname: 'six.example.com' });
    const info = await serverInfo(nubis, alice.token, s.id);
    const v6 = info.iface.v6[0].address as string;
    const shouted = v6.toUpperCase();
    assert.equal(
      (
        await nubis.request('PUT', '/v1.3/rdns/put', {
          token: alice.token,
          body: { server_id: s.id, rdns: 'v6.example.com', ip: shouted },
        })
      ).status,
      202,
    );
    const got = await nubis.request('GET', `/v1.3/rdns/get/${s.id}?ip=${encodeURIComponent(v6)}`, {
      token: alice.token,
    });
    assert.deepEqual([got.body.ip, got.body.rdns], [v6, 'v6.example.com']);
    const after = await serverInfo(nubis, alice.token, s.id);
    assert.equal(after.iface.v6[0].reverse, 'v6.example.com');
    assert.equal(after.iface.v4[0].reverse, 'six.example.com');
  });

  test('the ip extension names a floating IP attached to the server', async () => {
    const s = await deployServer(nubis, alice.token);
    const ip = await nubis.request('POST', '/v1.3/floating_ip/create', {
      token: alice.token,
      body: { region_id: 101, ip_version: 4 },
    });
    assert.equal(ip.status, 201, JSON.stringify(ip.body));
    assert.equal(
      (
        await nubis.request('PATCH', '/v1.3/floating_ip/attach', {
          token: alice.token,
          body: { server_id: s.id, ip_id: ip.body.uuid },
        })
      ).status,
      202,
    );
    const info = await serverInfo(nubis, alice.token, s.id);
    const floating = info.iface.v4.find((entry: { type: string }) => entry.type === 'floating');
    assert.equal(floating.address, ip.body.ip_address);
    assert.equal(
      (
        await nubis.request('PUT', '/v1.3/rdns/put', {
          token: alice.token,
          body: { server_id: s.id, rdns: 'float.example.com', ip: ip.body.ip_address },
        })
      ).status,
      202,
    );
    const list = await nubis.request('GET', '/v1.3/floating_ip/list', { token: alice.token });
    assert.equal(
      list.body.floating_ips.find((f: { uuid: string }) => f.uuid === ip.body.uuid).reverse,
      'float.example.com',
    );
    const shown = (await serverInfo(nubis, alice.token, s.id)).iface.v4.find(
      (entry: { type: string }) => entry.type === 'floating',
    );
    assert.equal(shown.reverse, 'float.example.com');
  });

  test('refuses a name that is not a host name, and an address the server does not hold', async () => {
    const s = await deployServer(nubis, alice.token);
    const bad = await nubis.request('PUT', '/v1.3/rdns/put', {
      token: alice.token,
      body: { server_id: s.id, rdns: 'not a host!' },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].field, 'rdns');
    const other = await nubis.request('PUT', '/v1.3/rdns/put', {
      token: alice.token,
      body: { server_id: s.id, rdns: 'ok.example.com', ip: '203.0.113.250' },
    });
    assert.equal(other.status, 400);
    assert.equal(other.body.errors[0].field, 'ip');
    const missing = await nubis.request('PUT', '/v1.3/rdns/put', { token: alice.token, body: { server_id: s.id } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.errors[0].field, 'rdns');
  });

  test("another account's server is a 404 for both", async () => {
    const s = await orderServer(nubis, alice.token, {});
    assert.equal((await nubis.request('GET', `/v1.3/rdns/get/${s.id}`, { token: bob.token })).status, 404);
    assert.equal(
      (
        await nubis.request('PUT', '/v1.3/rdns/put', {
          token: bob.token,
          body: { server_id: s.id, rdns: 'x.example.com' },
        })
      ).status,
      404,
    );
    assert.equal(
      (await nubis.request('GET', `/v1.3/rdns/get/${s.id}`, { token: alice.token })).body.rdns,
      'web-1.example.com',
    );
  });
});

describe('options', () => {
  test('option/get answers 200 with the default until set', async () => {
    const s = await orderServer(nubis, alice.token, {});
    const policy = await nubis.request('PUT', `/v1.3/option/get/${s.id}`, {
      token: alice.token,
      body: { name: 'bw_overage_policy' },
    });
    assert.equal(policy.status, 200);
    assert.deepEqual(policy.body, {
      success: { response: '200 OK', reason: '' },
      name: 'bw_overage_policy',
      value: 'power_off',
    });
    const threshold = await nubis.request('PUT', `/v1.3/option/get/${s.uuid}`, {
      token: alice.token,
      body: { name: 'bw_overage_treshold' },
    });
    assert.deepEqual([threshold.body.name, threshold.body.value], ['bw_overage_threshold', '1']);
  });

  test('option/set creates, updates and (with the text null) removes an option; info shows it', async () => {
    const s = await orderServer(nubis, alice.token, {});
    const set = async (name: string, value: unknown) =>
      nubis.request('PUT', `/v1.3/option/set/${s.id}`, { token: alice.token, body: { name, value } });
    const get = async (name: string) =>
      (await nubis.request('PUT', `/v1.3/option/get/${s.id}`, { token: alice.token, body: { name } })).body.value;

    const created = await set('bw_overage_policy', 'throttle');
    assert.equal(created.status, 202);
    assert.deepEqual(created.body, { success: { response: '202 Accepted', reason: '' } });
    assert.equal(await get('bw_overage_policy'), 'throttle');
    assert.equal((await set('bw_overage_treshold', '0.8')).status, 202);
    assert.equal(await get('bw_overage_threshold'), '0.8');
    assert.equal((await set('bw_overage_threshold', 1.5)).status, 202);
    assert.equal(await get('bw_overage_treshold'), '1.5');
    assert.deepEqual((await serverInfo(nubis, alice.token, s.id)).info.options, {
      bw_overage_policy: 'throttle',
      bw_overage_tresgold: 1.5,
      bw_overage_threshold: 1.5,
    });

    assert.equal((await set('bw_overage_policy', 'null')).status, 202);
    assert.equal((await set('bw_overage_treshold', null)).status, 202);
    assert.deepEqual((await serverInfo(nubis, alice.token, s.id)).info.options, {
      bw_overage_policy: 'power_off',
      bw_overage_tresgold: 1,
      bw_overage_threshold: 1,
    });
  });

  test('refuses unknown names and bad values, naming the field', async () => {
    const s = await orderServer(nubis, alice.token, {});
    const unknown = await nubis.request('PUT', `/v1.3/option/set/${s.id}`, {
      token: alice.token,
      body: { name: 'colour', value: 'blue' },
    });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.errors[0].field, 'name');
    const unknownGet = await nubis.request('PUT', `/v1.3/option/get/${s.id}`, {
      token: alice.token,
      body: { name: 'colour' },
    });
    assert.equal(unknownGet.status, 400);
    for (const [name, value] of [
      ['bw_overage_policy', 'explode'],
      ['bw_overage_threshold', 'lots'],
      ['bw_overage_threshold', '0'],
      ['bw_overage_threshold', '-1'],
    ]) {
      const result = await nubis.request('PUT', `/v1.3/option/set/${s.id}`, {
        token: alice.token,
        body: { name, value },
      });
      assert.equal(result.status, 400, `${name}=${value}`);
      assert.equal(result.body.errors[0].field, 'value');
    }
  });

  test("another account's server is a 404 for both", async () => {
    const s = await orderServer(nubis, alice.token, {});
    assert.equal(
      (
        await nubis.request('PUT', `/v1.3/option/get/${s.id}`, {
          token: bob.token,
          body: { name: 'bw_overage_policy' },
        })
      ).status,
      404,
    );
    assert.equal(
      (
        await nubis.request('PUT', `/v1.3/option/set/${s.id}`, {
          token: bob.token,
          body: { name: 'bw_overage_policy', value: 'throttle' },
        })
      ).status,
      404,
    );
  });
});
