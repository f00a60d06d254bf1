// Black-box tests of the legacy server operations (list, create, remove, reboot, stop): the
// legacy Server object and envelopes, and every operation checked from the other version.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../../test/support/accounts.ts';
import { deployServer, orderServer, serverInfo, SETTLE_SECONDS } from '../../../test/support/servers.ts';
import { crossings, protocol } from '../../../test/support/protocols.ts';
import { assertFieldErrors } from '../../../test/support/legacy-assertions.ts';

let nubis: TestInstance;
let alice: TestAccount;
let bob: TestAccount;

before(async () => {
  nubis = await startTestInstance({ SERVERS_LIMIT: '100' });
  [alice, bob] = await Promise.all([createAccount(nubis), createAccount(nubis)]);
});
after(async () => {
  await nubis.close();
});

// Timestamps in the legacy document's shape, YYYY-MM-DDTHH:MM:SSz (lower-case z).
const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dz$/;
const create = (form: Record<string, string | number | boolean>, token = alice.token) =>
  nubis.request('POST', '/v1/server/create', { token, form });
const post = (path: string, form: Record<string, string | number | boolean>, token = alice.token) =>
  nubis.request('POST', `/v1${path}`, { token, form });
const legacyList = async (token = alice.token) => {
  const list = await nubis.request('GET', '/v1/server/list', { token });
  assert.equal(list.status, 200, JSON.stringify(list.body));
  return list.body;
};
const minimal = { hostname: 'legacy.example.com', OSID: 1001, DCID: 101, PLAN: 1 };

describe('server/create and server/list, across versions', () => {
  for (const [made, seen] of crossings) {
    test(`a server created through ${made} is listed by ${seen}: same id, name, power, addresses, password, price`, async () => {
      const maker = protocol(nubis, made);
      const viewer = protocol(nubis, seen);
      const id = await maker.createServer(alice.token, {
        hostname: `x-${made.replace('.', '')}.example.com`,
        label: `made in ${made}`,
        region: 101,
        image: 1001,
        plan: 1,
        ipv6: true,
        ddosProtection: true,
      });

      const pending = (await viewer.servers(alice.token)).find((s) => s.id === id);
      assert.ok(pending, `${seen} lists the server made through ${made}`);
      assert.equal(pending.name, `made in ${made}`);
      assert.equal(pending.power, 'provisioning');
      assert.deepEqual(pending.addresses, []);
      assert.equal(pending.ddosProtection, true);
      assert.equal(pending.price, 15);

      await nubis.advance(SETTLE_SECONDS);
      const [fromMaker, fromViewer] = await Promise.all(
        [maker, viewer].map(async (p) => (await p.servers(alice.token)).find((s) => s.id === id)),
      );
      assert.equal(fromViewer!.power, 'running');
      assert.equal(fromViewer!.addresses.length, 2, 'an IPv4 and an IPv6 address');
      assert.deepEqual(fromViewer, fromMaker);
      // Bob sees neither.
      assert.equal(
        (await viewer.servers(bob.token)).some((s) => s.id === id),
        false,
      );
    });
  }

  test("the legacy Server object has exactly the spec's fields: pending, then active with iface and bandwidth as strings", async () => {
    // Made through v1.3, read through v1.
    const made = await orderServer(nubis, alice.token, {
      hostname: 'shape.example.com',
      label: 'shape',
      ipv6_networking: true,
    });
    const pending = (await legacyList())[String(made.id)];
    assert.deepEqual(Object.keys(pending).sort(), [
      'ID',
      'bandwidth',
      'created',
      'ddos_protection',
      'iface',
      'name',
      'password',
      'power',
      'price',
    ]);
    assert.equal(pending.ID, made.id);
    assert.equal(pending.name, 'shape');
    assert.equal(pending.power, 'pending');
    assert.deepEqual(pending.iface, { v4: [], v6: [] });
    assert.equal(pending.price, 5);
    assert.match(pending.created, iso);
    assert.equal(pending.created, made.created.replace(/Z$/, 'z'));
    assert.deepEqual(pending.bandwidth, { usage: '0', limit: '1000' });
    assert.equal(pending.password, made.info.password);
    assert.equal(pending.ddos_protection, false);

    await nubis.advance(SETTLE_SECONDS);
    const info = await serverInfo(nubis, alice.token, made.id);
    const active = (await legacyList())[String(made.id)];
    assert.equal(active.power, 'active');
    assert.deepEqual(active.iface.v4, [
      { ip_address: info.iface.v4[0].address, netmask: '255.255.255.128', gateway: '192.0.2.1', type: 'public' },
    ]);
    assert.deepEqual(active.iface.v6, [
      { ip_address: info.iface.v6[0].address, netmask: 64, gateway: '2001:db8:101:0:1::1', type: 'public' },
    ]);
    assert.equal(typeof active.bandwidth.usage, 'string');
    assert.equal(Number(active.bandwidth.usage), info.bandwidth.usage);
  });

  test('a floating IP shows as a public v4 entry, a VPC address as private', async () => {
    const made = await deployServer(nubis, alice.token, { hostname: 'ifaces.example.com' });
    const ip = await nubis.request('POST', '/v1.3/floating_ip/create', {
      token: alice.token,
      body: { region_id: 101, ip_version: 4 },
    });
    const ipId = (await nubis.request('GET', '/v1.3/floating_ip/list', { token: alice.token })).body.floating_ips.find(
      (f: { uuid: string }) => f.uuid === ip.body.uuid,
    ).id;
    assert.equal(
      (
        await nubis.request('PATCH', '/v1.3/floating_ip/attach', {
          token: alice.token,
          body: { ip_id: ipId, server_id: made.id },
        })
      ).status,
      202,
    );
    const vpc = await nubis.request('POST', '/v1.3/vpc/create', {
      token: alice.token,
      body: { region_id: 101, name: 'backend' },
    });
    assert.equal(
      (
        await nubis.request('PATCH', '/v1.3/vpc/attach', {
          token: alice.token,
          body: { vpc_id: vpc.body.uuid, server_id: made.id },
        })
      ).status,
      202,
    );

    const entry = (await legacyList())[String(made.id)];
    assert.deepEqual(
      entry.iface.v4.map((i: { type: string }) => i.type),
      ['public', 'public', 'private'],
    );
    assert.deepEqual(entry.iface.v4[1], {
      ip_address: ip.body.ip_address,
      netmask: '255.255.255.255',
      gateway: '192.0.2.1',
      type: 'public',
    });
    assert.match(entry.iface.v4[2].ip_address, /^10\./);
    assert.equal(entry.iface.v4[2].netmask, '255.255.255.0');
  });

  test('every form field reaches the server: label, hostname, OSID, DCID, PLAN, ipv6_networking, ddos_protection, private_networking, cloud_init_script', async () => {
    const result = await create({
      label: 'all fields',
      hostname: 'all.example.com',
      OSID: 1011,
      DCID: 102,
      PLAN: 3,
      ipv6_networking: true,
      ddos_protection: true,
      private_networking: true,
      cloud_init_script: 'https://example.com/init.sh',
    });
    assert.equal(result.status, 200);
    assert.equal(result.body.response_type, 'success');
    assert.equal(result.body.response_code, 202);
    assert.match(result.body.message, /^\d+$/, 'the message is the new SUBID');
    const info = await serverInfo(nubis, alice.token, result.body.message);
    assert.equal(info.name, 'all fields');
    assert.equal(info.info.hostname, 'all.example.com');
    assert.equal(info.info.img_id, 1011);
    assert.equal(info.info.reg_id, 102);
    assert.equal(info.info.plan_id, 3);
    assert.equal(info.info.ipv6_enabled, true);
    assert.equal(info.info.ddos_protection, true);
    assert.equal(info.info.private_network, true);
    assert.equal(info.info.script_url, 'https://example.com/init.sh');

    // private_networking joins the account's VPC of the location, made on first use and then reused.
    const second = await create({ ...minimal, hostname: 'second.example.com', DCID: 102, private_networking: true });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    const vpcs = (await nubis.request('GET', '/v1.3/vpc/list', { token: alice.token })).body.vpcs.filter(
      (v: { region: number }) => v.region === 102,
    );
    assert.equal(vpcs.length, 1);
    assert.equal(vpcs[0].name, 'default');
    assert.deepEqual(vpcs[0].servers, [info.uuid, (await serverInfo(nubis, alice.token, second.body.message)).uuid]);
  });

  test('concurrent creates with private_networking make one private network, not one each', async () => {
    const grace = await createAccount(nubis);
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        create({ ...minimal, hostname: `p${i}.example.com`, DCID: 202, private_networking: true }, grace.token),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      [200, 200, 200, 200],
    );
    const vpcs = (await nubis.request('GET', '/v1.3/vpc/list', { token: grace.token })).body.vpcs;
    assert.equal(vpcs.length, 1);
    assert.equal(vpcs[0].servers.length, 4);
  });

  test('label defaults to the hostname, an empty cloud_init_script is none, false booleans are off, ids may be uuids', async () => {
    const regions = (await nubis.request('GET', '/v1.3/region/list')).body.regions;
    const result = await create({
      hostname: 'plain.example.com',
      OSID: 1001,
      DCID: regions['101'].uuid,
      PLAN: '1',
      cloud_init_script: '',
      ipv6_networking: false,
      ddos_protection: 'false',
      private_networking: false,
    });
    assert.equal(result.status, 200, JSON.stringify(result.body));
    const info = await serverInfo(nubis, alice.token, result.body.message);
    assert.equal(info.name, 'plain.example.com');
    assert.equal(info.info.reg_id, 101);
    assert.equal(info.info.script_url, null);
    assert.deepEqual(info.info.features, []);
  });

  test('each bad form field is named in one 400 envelope', async () => {
    assertFieldErrors(await create({}), ['DCID', 'OSID', 'PLAN', 'hostname']);
    assertFieldErrors(
      await create({ ...minimal, OSID: 'ubuntu', DCID: 'nyc', ipv6_networking: 'yes', ddos_protection: 'maybe' }),
      ['DCID', 'OSID', 'ddos_protection', 'ipv6_networking'],
    );
    // Rules of the server service, named by the form field the client sent.
    assertFieldErrors(await create({ ...minimal, DCID: 999 }), ['DCID']);
    assertFieldErrors(await create({ ...minimal, OSID: 99999, PLAN: 99999 }), ['OSID', 'PLAN']);
    assertFieldErrors(await create({ ...minimal, hostname: 'not a hostname!' }), ['hostname']);
    assertFieldErrors(await create({ ...minimal, cloud_init_script: 'echo hello' }), ['cloud_init_script']);
    assertFieldErrors(await create({ ...minimal, DCID: 103, ddos_protection: true }), ['ddos_protection']);
    assertFieldErrors(await create({ ...minimal, DCID: 601, private_networking: true }), ['private_networking']);
    assertFieldErrors(await create({ ...minimal, DCID: 999, private_networking: true }), ['DCID']);
    assert.equal(Object.keys(await legacyList(bob.token)).length, 0);
  });

  test('402 envelope when the balance cannot pay the first hour; nothing is created, in either version', async () => {
    const poor = await createAccount(nubis, { credit: 0 });
    const result = await create(minimal, poor.token);
    assert.equal(result.status, 402);
    assert.deepEqual(Object.keys(result.body).sort(), ['message', 'response_code', 'response_type']);
    assert.equal(result.body.response_type, 'error');
    assert.equal(result.body.response_code, 402);
    assert.match(result.body.message, /funds/);
    assert.deepEqual(await legacyList(poor.token), {});
    assert.deepEqual((await nubis.request('GET', '/v1.3/server/list', { token: poor.token })).body.servers, []);
  });

  test('403 envelope for an account not activated, and at servers.limit (counted over both versions)', async () => {
    const inactive = await createAccount(nubis, { activate: false, credit: 100 });
    const refused = await create(minimal, inactive.token);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.response_code, 403);
    assert.match(refused.body.message, /not activated/);

    const limited = await createAccount(nubis);
    assert.equal((await nubis.admin('PATCH', `/admin/accounts/${limited.id}`, { servers_limit: 2 })).status, 200);
    await orderServer(nubis, limited.token, {});
    assert.equal((await create(minimal, limited.token)).status, 200);
    const full = await create(minimal, limited.token);
    assert.equal(full.status, 403);
    assert.match(full.body.message, /servers\.limit/);
    assert.equal(
      (
        await nubis.request('POST', '/v1.3/server/create', {
          token: limited.token,
          body: { hostname: 'h.example.com', label: 'h', region: 101, image: 1001, plan: 1 },
        })
      ).status,
      403,
    );
  });

  test('401 envelope without a key or with a wrong one; the key works with or without Bearer', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer not-a-key-0000000000000000' },
      { authorization: 'not-a-key-0000000000000000' },
    ] as Record<string, string>[]) {
      const result = await nubis.request('GET', '/v1/server/list', { headers });
      assert.equal(result.status, 401);
      assert.equal(result.body.response_type, 'error');
      assert.equal(result.body.response_code, 401);
    }
    assert.equal(
      (await nubis.request('GET', '/v1/server/list', { headers: { authorization: alice.token } })).status,
      200,
    );
    assert.equal(
      (await nubis.request('POST', '/v1/server/create', { headers: { authorization: alice.token }, form: minimal }))
        .status,
      200,
    );
  });
});

describe('server/remove, server/reboot, server/stop, across versions', () => {
  for (const [made, seen] of crossings) {
    test(`stop and reboot through ${made} are seen by ${seen}; reboot starts a stopped server; remove ends it`, async () => {
      const actor = protocol(nubis, made);
      const viewer = protocol(nubis, seen);
      const id = await viewer.createServer(alice.token, {
        hostname: 'power.example.com',
        label: 'power',
        region: 101,
        image: 1001,
        plan: 1,
      });
      await nubis.advance(SETTLE_SECONDS);
      const power = async () => (await viewer.servers(alice.token)).find((s) => s.id === id)?.power;

      await actor.power(alice.token, id, 'stop');
      assert.equal(await power(), 'stopping');
      await nubis.advance(SETTLE_SECONDS);
      assert.equal(await power(), 'stopped');

      await actor.power(alice.token, id, 'reboot');
      assert.equal(await power(), 'booting', 'reboot starts a stopped server');
      await nubis.advance(SETTLE_SECONDS);
      assert.equal(await power(), 'running');

      await actor.power(alice.token, id, 'reboot');
      assert.equal(await power(), 'rebooting');
      await nubis.advance(SETTLE_SECONDS);

      await actor.removeServer(alice.token, id);
      assert.equal(await power(), undefined, `${seen} no longer lists it`);
    });
  }

  test('the envelopes: remove 204, reboot and stop 201, with HTTP 200; SUBID may be the uuid', async () => {
    const made = await deployServer(nubis, alice.token);
    const stop = await post('/server/stop', { SUBID: made.uuid });
    assert.equal(stop.status, 200);
    assert.equal(stop.body.response_type, 'success');
    assert.equal(stop.body.response_code, 201);
    assert.equal(typeof stop.body.message, 'string');
    await nubis.advance(SETTLE_SECONDS);
    assert.equal((await post('/server/reboot', { SUBID: made.id })).body.response_code, 201);
    await nubis.advance(SETTLE_SECONDS);
    const removed = await post('/server/remove', { SUBID: made.id });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.response_code, 204);
    assert.equal((await nubis.request('GET', `/v1.3/server/info/${made.id}`, { token: alice.token })).status, 404);
  });

  test('stop on a busy server supersedes the transition; stopping a stopped server is a 201 envelope that changes nothing', async () => {
    const made = await orderServer(nubis, alice.token, {});
    const busy = await post('/server/stop', { SUBID: made.id });
    assert.equal(busy.status, 200);
    assert.equal(busy.body.response_code, 201);
    assert.equal((await serverInfo(nubis, alice.token, made.id)).power, 'stopping');
    await nubis.advance(SETTLE_SECONDS);
    assert.equal((await serverInfo(nubis, alice.token, made.id)).power, 'stopped');
    const again = await post('/server/stop', { SUBID: made.id });
    assert.equal(again.status, 200);
    assert.equal(again.body.response_code, 201);
    assert.equal((await serverInfo(nubis, alice.token, made.id)).power, 'stopped');
  });

  test("another account's SUBID answers exactly like a missing one, and its server stays", async () => {
    const bobs = await deployServer(nubis, bob.token);
    for (const path of ['/server/remove', '/server/reboot', '/server/stop']) {
      const foreign = await post(path, { SUBID: bobs.id });
      const missing = await post(path, { SUBID: 99_999_999 });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.response_code, 404);
      assert.deepEqual(foreign.body, missing.body);
    }
    assert.equal((await serverInfo(nubis, bob.token, bobs.id)).power, 'running');
  });

  test('a missing or malformed SUBID is named in a 400 envelope', async () => {
    for (const path of ['/server/remove', '/server/reboot', '/server/stop']) {
      assertFieldErrors(await post(path, {}), ['SUBID']);
      assertFieldErrors(await post(path, { SUBID: 'web-1' }), ['SUBID']);
      assertFieldErrors(await post(path, { SUBID: 0 }), ['SUBID']);
    }
  });

  test('create through v1 starts billing at once, remove through v1 stops it (v1.3 billing.usage)', async () => {
    const fresh = await createAccount(nubis);
    const usage = async () =>
      (await nubis.request('GET', '/v1.3/account/info', { token: fresh.token })).body.billing.usage;
    assert.equal(await usage(), 0);
    const created = await create(minimal, fresh.token);
    assert.equal(created.status, 200);
    assert.ok((await usage()) > 0, 'the server is billed from creation');
    await nubis.advance(SETTLE_SECONDS);
    assert.equal((await post('/server/remove', { SUBID: created.body.message }, fresh.token)).status, 200);
    assert.equal(await usage(), 0);
  });
});
