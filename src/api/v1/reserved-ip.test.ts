// Black-box tests of the legacy reserved IPs (v1.3 floating IPs): list, create, remove, attach
// and detach, each checked from the other version, the legacy limit message, and every refusal.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../../test/support/accounts.ts';
import { deployServer, orderServer, serverInfo } from '../../../test/support/servers.ts';
import { smallCatalogFile } from '../../../test/support/network.ts';
import { crossings, protocol, v13, type ReservedIpView } from '../../../test/support/protocols.ts';
import { assertFieldErrors, assertError } from '../../../test/support/legacy-assertions.ts';

let nubis: TestInstance;
let alice: TestAccount;
let bob: TestAccount;

before(async () => {
  nubis = await startTestInstance({ SERVERS_LIMIT: '100', FLOATING_IPS_LIMIT: '100' });
  [alice, bob] = await Promise.all([createAccount(nubis), createAccount(nubis)]);
});
after(async () => {
  await nubis.close();
});

const post = (path: string, form: Record<string, string | number | boolean>, token = alice.token, on = nubis) =>
  on.request('POST', `/v1/reservedip${path}`, { token, form });
async function legacyList(token = alice.token) {
  const list = await nubis.request('GET', '/v1/reservedip/list', { token });
  assert.equal(list.status, 200, JSON.stringify(list.body));
  return list.body;
}
async function viewOf(address: string, token = alice.token): Promise<ReservedIpView> {
  const ip = (await v13(nubis).reservedIps(token)).find((entry) => entry.address === address);
  assert.ok(ip, `${address} is listed`);
  return ip;
}

describe('reserved IPs across versions', () => {
  for (const [made, seen] of crossings) {
    test(`created, attached, detached and removed through ${made}: ${seen} sees each step`, async () => {
      const actor = protocol(nubis, made);
      const viewer = protocol(nubis, seen);
      const address = await actor.createReservedIp(alice.token, 101);
      const listed = (await viewer.reservedIps(alice.token)).find((ip) => ip.address === address);
      assert.ok(listed, `${seen} lists the address reserved through ${made}`);
      assert.deepEqual({ ...listed, id: 0 }, { id: 0, address, version: 4, attachedTo: null, regionId: 101 });
      assert.equal(
        (await viewer.reservedIps(bob.token)).some((ip) => ip.address === address),
        false,
      );

      const target = await deployServer(nubis, alice.token);
      await actor.attach(alice.token, listed, target.id);
      assert.equal((await viewer.reservedIps(alice.token)).find((ip) => ip.id === listed.id)?.attachedTo, target.id);
      assert.ok(
        (await viewer.servers(alice.token)).find((s) => s.id === target.id)?.addresses.includes(address),
        'the server shows the address',
      );

      await actor.detach(alice.token, listed, target.id);
      assert.equal((await viewer.reservedIps(alice.token)).find((ip) => ip.id === listed.id)?.attachedTo, null);
      assert.equal(
        (await viewer.servers(alice.token)).find((s) => s.id === target.id)?.addresses.includes(address),
        false,
      );

      await actor.removeReservedIp(alice.token, listed);
      assert.equal(
        (await viewer.reservedIps(alice.token)).some((ip) => ip.id === listed.id),
        false,
      );
    });
  }

  test("the legacy Reserved IP object: exactly the spec's fields, the same ID, address, time and server as v1.3", async () => {
    const created = await nubis.request('POST', '/v1.3/floating_ip/create', {
      token: alice.token,
      body: { region_id: 102, ip_version: 4 },
    });
    const ip = await viewOf(created.body.ip_address);
    const here = await deployServer(nubis, alice.token, { region: 102 });
    assert.equal(
      (
        await nubis.request('PATCH', '/v1.3/floating_ip/attach', {
          token: alice.token,
          body: { ip_id: ip.id, server_id: here.id },
        })
      ).status,
      202,
    );

    const entry = (await legacyList())[String(ip.id)];
    assert.deepEqual(Object.keys(entry).sort(), ['ID', 'IP', 'attached_to', 'created_at', 'location_id', 'type']);
    assert.deepEqual(entry, {
      ID: ip.id,
      IP: created.body.ip_address,
      type: 'v4',
      created_at: created.body.created.replace(/Z$/, 'z'),
      attached_to: here.id,
      location_id: 102,
    });
  });

  test('IPv6 (ip_type v6): a /64 block listed as type v6, named by its address however it is written', async () => {
    const created = await post('/create', { DCID: 101, ip_type: 'v6' });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const address: string = created.body.message;
    assert.match(address, /^2001:db8:101:[0-9a-f]{1,4}::$/);
    const v13Entry = (
      await nubis.request('GET', '/v1.3/floating_ip/list', { token: alice.token })
    ).body.floating_ips.find((f: { address: string }) => f.address === address);
    assert.equal(v13Entry.prefix, 64);
    assert.equal((await legacyList())[String(v13Entry.id)].type, 'v6');

    const six = await deployServer(nubis, alice.token, { ipv6_networking: true });
    const spelled = `${address.toUpperCase().replace('::', ':0:0:0:0')}/64`;
    assert.equal((await post('/attach', { IP: spelled, SUBID: six.id })).status, 200);
    assert.ok(
      (await serverInfo(nubis, alice.token, six.id)).iface.v6.some(
        (i: { address: string; type: string }) => i.address === address && i.type === 'floating',
      ),
    );
    assert.equal((await post('/detach', { IP: `${address}/64`, SUBID: six.id })).status, 200);
    assert.equal((await post('/remove', { IP: spelled })).status, 200);
    assert.equal((await legacyList())[String(v13Entry.id)], undefined);
  });

  test('the envelopes: create 202 with the address as message, attach and detach 201, remove 204; IP may be the ID or uuid', async () => {
    const created = await post('/create', { DCID: 101 });
    assert.deepEqual(Object.keys(created.body).sort(), ['message', 'response_code', 'response_type']);
    assert.equal(created.body.response_type, 'success');
    assert.equal(created.body.response_code, 202);
    assert.match(created.body.message, /^192\.0\.2\.\d+$/);
    const ip = await viewOf(created.body.message);
    const uuid = (await nubis.request('GET', '/v1.3/floating_ip/list', { token: alice.token })).body.floating_ips.find(
      (f: { id: number }) => f.id === ip.id,
    ).uuid;
    const target = await deployServer(nubis, alice.token);

    const attached = await post('/attach', { IP: ip.id, SUBID: target.id });
    assert.equal(attached.status, 200);
    assert.equal(attached.body.response_code, 201);
    const detached = await post('/detach', { IP: uuid, SUBID: target.uuid });
    assert.equal(detached.status, 200);
    assert.equal(detached.body.response_code, 201);
    const removed = await post('/remove', { IP: String(ip.id) });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.response_code, 204);
    assert.equal(
      (await nubis.request('DELETE', `/v1.3/floating_ip/remove/${ip.id}`, { token: alice.token })).status,
      404,
    );
  });

  test('remove stops billing at once (v1.3 billing.usage)', async () => {
    const fresh = await createAccount(nubis);
    const usage = async () =>
      (await nubis.request('GET', '/v1.3/account/info', { token: fresh.token })).body.billing.usage;
    const created = await post('/create', { DCID: 101 }, fresh.token);
    assert.ok((await usage()) > 0);
    assert.equal((await post('/remove', { IP: created.body.message }, fresh.token)).status, 200);
    assert.equal(await usage(), 0);
  });
});

describe('reserved IP refusals', () => {
  test('bad or missing form fields are named in one 400 envelope', async () => {
    assertFieldErrors(await post('/create', {}), ['DCID']);
    assertFieldErrors(await post('/create', { DCID: 'nyc', ip_type: 'v5' }), ['DCID', 'ip_type']);
    // A location without reserved IPs: the service's rule, named by the form field.
    assertFieldErrors(await post('/create', { DCID: 601 }), ['DCID']);
    assertFieldErrors(await post('/attach', {}), ['IP', 'SUBID']);
    assertFieldErrors(await post('/detach', { IP: '192.0.2.10', SUBID: 'web' }), ['SUBID']);
    assertFieldErrors(await post('/remove', { IP: '' }), ['IP']);

    // Attaching to a server of another location is named by SUBID.
    const created = await post('/create', { DCID: 101 });
    const elsewhere = await orderServer(nubis, alice.token, { region: 102 });
    assertFieldErrors(await post('/attach', { IP: created.body.message, SUBID: elsewhere.id }), ['SUBID']);
  });

  test('an unknown location is a 404 envelope; the 402 envelope when the balance cannot pay the first hour', async () => {
    assertError(await post('/create', { DCID: 999 }), 404, /region not found/);
    const poor = await createAccount(nubis, { credit: 0 });
    assertError(await post('/create', { DCID: 101 }, poor.token), 402, /funds/);
    assert.deepEqual((await nubis.request('GET', '/v1/reservedip/list', { token: poor.token })).body, {});
  });

  test("another account's reserved IP, by address or by ID, answers exactly like a missing one", async () => {
    const bobs = await post('/create', { DCID: 101 }, bob.token);
    const bobsIp = await viewOf(bobs.body.message, bob.token);
    const target = await deployServer(nubis, alice.token);
    for (const IP of [bobsIp.address, bobsIp.id]) {
      const foreign = [
        await post('/remove', { IP }),
        await post('/attach', { IP, SUBID: target.id }),
        await post('/detach', { IP, SUBID: target.id }),
      ];
      const missing = [
        await post('/remove', { IP: '203.0.113.250' }),
        await post('/attach', { IP: 99_999_999, SUBID: target.id }),
        await post('/detach', { IP: 'not-an-address', SUBID: target.id }),
      ];
      for (const [index, result] of foreign.entries()) {
        assertError(result, 404);
        assert.deepEqual(result.body, missing[index]!.body);
      }
    }
    assert.equal((await viewOf(bobs.body.message, bob.token)).id, bobsIp.id, 'bob keeps it');
  });

  test('removing an attached IP, or detaching one that is not attached, is a 409 envelope', async () => {
    const created = await post('/create', { DCID: 101 });
    const target = await deployServer(nubis, alice.token);
    assertError(await post('/detach', { IP: created.body.message, SUBID: target.id }), 409, /not attached/);
    assert.equal((await post('/attach', { IP: created.body.message, SUBID: target.id })).status, 200);
    assertError(await post('/remove', { IP: created.body.message }), 409, /detach it first/);
    assert.equal((await viewOf(created.body.message)).attachedTo, target.id);
  });

  test('403 envelope for an account that is not activated; 401 without a key', async () => {
    const inactive = await createAccount(nubis, { activate: false, credit: 100 });
    assertError(await post('/create', { DCID: 101 }, inactive.token), 403, /not activated/);
    assertError(await nubis.request('GET', '/v1/reservedip/list'), 401);
    assertError(await nubis.request('POST', '/v1/reservedip/create', { form: { DCID: 101 } }), 401);
  });
});

describe('the per-account limit (FLOATING_IPS_LIMIT)', () => {
  let limited: TestInstance;
  before(async () => {
    limited = await startTestInstance({ FLOATING_IPS_LIMIT: '2', CATALOG_FILE: smallCatalogFile() });
  });
  after(async () => {
    await limited.close();
  });

  test('counts IPs made through both versions; v1 answers the spec\'s "Maximum number of IPs assigned", v1.3 its own 403', async () => {
    const carol = await createAccount(limited);
    const other = await createAccount(limited);
    assert.equal(
      (
        await limited.request('POST', '/v1.3/floating_ip/create', {
          token: carol.token,
          body: { region_id: 101, ip_version: 4 },
        })
      ).status,
      201,
    );
    assert.equal((await post('/create', { DCID: 101 }, carol.token, limited)).status, 200);

    const legacy = await post('/create', { DCID: 102 }, carol.token, limited);
    assertError(legacy, 403, /^Maximum number of IPs assigned \(2\): contact support to request more$/);
    const current = await limited.request('POST', '/v1.3/floating_ip/create', {
      token: carol.token,
      body: { region_id: 102, ip_version: 4 },
    });
    assert.equal(current.status, 403);
    assert.match(current.body.errors.reason, /floating IP limit reached/);
    assert.equal((await protocol(limited, 'v1').reservedIps(carol.token)).length, 2, 'a refused create takes nothing');

    // The limit is per account, and a removal makes room again.
    assert.equal((await post('/create', { DCID: 101 }, other.token, limited)).status, 200);
    const [first] = await protocol(limited, 'v1').reservedIps(carol.token);
    await protocol(limited, 'v1').removeReservedIp(carol.token, first!);
    assert.equal((await post('/create', { DCID: 101, ip_type: 'v4' }, carol.token, limited)).status, 200);
  });

  test('concurrent creates through both versions never exceed the limit', async () => {
    const frank = await createAccount(limited);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2
          ? post('/create', { DCID: 102 }, frank.token, limited)
          : limited.request('POST', '/v1.3/floating_ip/create', {
              token: frank.token,
              body: { region_id: 102, ip_version: 4 },
            }),
      ),
    );
    assert.equal(
      results.filter((r) => r.status === 200 || r.status === 201).length,
      2,
      JSON.stringify(results.map((r) => r.status)),
    );
    assert.ok(results.every((r) => [200, 201, 403].includes(r.status)));
    assert.equal((await protocol(limited, 'v1.3').reservedIps(frank.token)).length, 2);
  });

  test('ip_type v6 in a location without IPv6 is named in a 400', async () => {
    const dave = await createAccount(limited);
    assertFieldErrors(await post('/create', { DCID: 102, ip_type: 'v6' }, dave.token, limited), ['ip_type']);
  });
});
