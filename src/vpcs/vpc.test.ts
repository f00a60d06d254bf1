// Black-box tests of VPCs: list, create, attach, detach, remove, with every refusal
// (features, funds, permissions, other accounts, region mismatch, members, removal hold).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, serverInfo } from '../../test/support/servers.ts';
import { assertFieldErrors } from '../../test/support/assertions.ts';

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

interface Vpc {
  id: number;
  uuid: string;
  servers: string[];
  name: string;
  region: number;
  created: string;
}

const create = (account: TestAccount, body: unknown) =>
  nubis.request('POST', '/v1.3/vpc/create', { token: account.token, body });
const remove = (account: TestAccount, ref: string | number) =>
  nubis.request('DELETE', `/v1.3/vpc/remove/${ref}`, { token: account.token });
const attach = (account: TestAccount, body: unknown) =>
  nubis.request('PATCH', '/v1.3/vpc/attach', { token: account.token, body });
const detach = (account: TestAccount, body: unknown) =>
  nubis.request('PATCH', '/v1.3/vpc/detach', { token: account.token, body });
async function list(account: TestAccount): Promise<Vpc[]> {
  const result = await nubis.request('GET', '/v1.3/vpc/list', { token: account.token });
  assert.equal(result.status, 200, JSON.stringify(result.body));
  return result.body.vpcs;
}
async function created(account: TestAccount, body: { region_id: unknown; name: string }): Promise<Vpc> {
  const result = await create(account, body);
  assert.equal(result.status, 201, JSON.stringify(result.body));
  const vpc = (await list(account)).find((entry) => entry.uuid === result.body.uuid);
  assert.ok(vpc, 'the new VPC is listed');
  return vpc;
}

describe('create', () => {
  test('201 with the uuid; listed with its name, region and no servers', async () => {
    const result = await create(alice, { region_id: 101, name: 'backend' });
    assert.equal(result.status, 201, JSON.stringify(result.body));
    assert.deepEqual(Object.keys(result.body), ['uuid']);
    assert.match(result.body.uuid, /^[0-9a-f-]{36}$/);
    const vpc = (await list(alice)).find((entry) => entry.uuid === result.body.uuid);
    assert.ok(vpc);
    assert.deepEqual(
      { ...vpc, id: 0, created: '' },
      { id: 0, uuid: result.body.uuid, servers: [], name: 'backend', region: 101, created: '' },
    );
    assert.match(vpc.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('region by uuid or numeric string', async () => {
    const regions = await nubis.request('GET', '/v1.3/region/list');
    assert.equal((await created(alice, { region_id: regions.body.regions['202'].uuid, name: 'by uuid' })).region, 202);
    assert.equal((await created(alice, { region_id: '202', name: 'by string' })).region, 202);
  });

  test('an unknown region is a 404; a region without VPCs a 400 naming region_id', async () => {
    const unknown = await create(alice, { region_id: 999, name: 'x' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.errors.response, '404 Not Found');
    const noFeature = await create(alice, { region_id: 601, name: 'x' });
    assertFieldErrors(noFeature, ['region_id']);
    assert.match(noFeature.body.errors[0].reason, /does not offer virtual_private_cloud/);
  });

  test('bad or missing fields are named in one 400', async () => {
    assertFieldErrors(await create(alice, {}), ['name', 'region_id']);
    assertFieldErrors(await create(alice, { region_id: 101, name: '' }), ['name']);
    assertFieldErrors(await create(alice, { region_id: 101, name: 'x'.repeat(101) }), ['name']);
  });

  test('402 when the balance cannot cover the first hour', async () => {
    const indebted = await createAccount(nubis, { credit: -1 });
    const result = await create(indebted, { region_id: 101, name: 'x' });
    assert.equal(result.status, 402);
    assert.equal(result.body.errors.response, '402 Payment Required');
    assert.deepEqual(await list(indebted), []);
  });

  test('403 for an account not activated or without the vpcs permission; 401 without a token', async () => {
    const dormant = await createAccount(nubis, { activate: false });
    assert.equal((await create(dormant, { region_id: 101, name: 'x' })).status, 403);
    const limited = await createAccount(nubis);
    assert.equal(
      (await nubis.admin('PATCH', `/admin/accounts/${limited.id}`, { permissions: { vpcs: false } })).status,
      200,
    );
    const refused = await create(limited, { region_id: 101, name: 'x' });
    assert.equal(refused.status, 403);
    assert.match(refused.body.errors.reason, /vpcs/);
    assert.equal(
      (await nubis.request('POST', '/v1.3/vpc/create', { body: { region_id: 101, name: 'x' } })).status,
      401,
    );
    assert.equal((await nubis.request('GET', '/v1.3/vpc/list')).status, 401);
  });
});

describe('list', () => {
  test("shows only the caller's VPCs, oldest first", async () => {
    const carol = await createAccount(nubis);
    assert.deepEqual(await list(carol), []);
    const first = await created(carol, { region_id: 101, name: 'one' });
    const second = await created(carol, { region_id: 201, name: 'two' });
    assert.deepEqual(
      (await list(carol)).map((vpc) => vpc.uuid),
      [first.uuid, second.uuid],
    );
    assert.ok(!(await list(alice)).some((vpc) => vpc.uuid === first.uuid));
  });
});

describe('remove', () => {
  test('by uuid and by id: 204, gone from the list, then 404', async () => {
    const a = await created(alice, { region_id: 101, name: 'a' });
    const b = await created(alice, { region_id: 101, name: 'b' });
    const removed = await remove(alice, a.uuid);
    assert.equal(removed.status, 204);
    assert.equal(removed.body, null);
    assert.equal((await remove(alice, b.id)).status, 204);
    assert.ok(!(await list(alice)).some((vpc) => vpc.uuid === a.uuid || vpc.uuid === b.uuid));
    assert.equal((await remove(alice, a.uuid)).status, 404);
    assert.equal((await remove(alice, 'nonsense')).status, 404);
  });

  test("another account's VPC answers 404 exactly like a missing one, and stays", async () => {
    const bobs = await created(bob, { region_id: 101, name: 'bob' });
    const foreign = await remove(alice, bobs.uuid);
    const missing = await remove(alice, '00000000-0000-4000-8000-000000000000');
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, missing.body);
    assert.equal((await remove(alice, bobs.id)).status, 404);
    assert.ok((await list(bob)).some((vpc) => vpc.uuid === bobs.uuid));
  });

  test('403 without the vpcs permission', async () => {
    const account = await createAccount(nubis);
    const vpc = await created(account, { region_id: 101, name: 'kept' });
    await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { permissions: { vpcs: false } });
    assert.equal((await remove(account, vpc.uuid)).status, 403);
    assert.ok((await list(account)).some((entry) => entry.uuid === vpc.uuid));
  });
});

describe('attach and detach refusals that need no server', () => {
  test("an unknown server or VPC, or another account's VPC, is a 404", async () => {
    const mine = await created(alice, { region_id: 101, name: 'mine' });
    const bobs = await created(bob, { region_id: 101, name: 'bob' });
    for (const call of [attach, detach]) {
      const noServer = await call(alice, { server_id: 999999, vpc_id: mine.uuid });
      assert.equal(noServer.status, 404);
      assert.match(noServer.body.errors.reason, /server not found/);
      const noVpc = await call(alice, { server_id: 1, vpc_id: '00000000-0000-4000-8000-000000000000' });
      assert.equal(noVpc.status, 404);
      assert.match(noVpc.body.errors.reason, /VPC not found/);
      const foreign = await call(alice, { server_id: 1, vpc_id: bobs.uuid });
      assert.deepEqual(foreign.body, noVpc.body);
      assert.equal(foreign.status, 404);
    }
  });

  test('missing ids are named in one 400', async () => {
    assertFieldErrors(await attach(alice, {}), ['server_id', 'vpc_id']);
    assertFieldErrors(await detach(alice, { vpc_id: 'x y' }), ['server_id', 'vpc_id']);
  });
});

describe('attach and detach', () => {
  interface Iface {
    address: string;
    netmask: string;
    gateway: string;
    type: string;
  }
  const privateIn = (info: { iface: { v4: Iface[] } }) => info.iface.v4.filter((entry) => entry.type === 'private');
  const slash24 = (address: string) => address.split('.').slice(0, 3).join('.');

  test("attach: 202, the VPC lists the server, the server gets a private address of the VPC's range; again keeps it", async () => {
    const account = await createAccount(nubis);
    const host = await deployServer(nubis, account.token);
    const vpc = await created(account, { region_id: 101, name: 'net' });

    const attached = await attach(account, { server_id: host.uuid, vpc_id: vpc.uuid });
    assert.equal(attached.status, 202, JSON.stringify(attached.body));
    assert.deepEqual(attached.body, { success: { response: '202 Accepted', reason: '' } });
    assert.deepEqual((await list(account)).find((entry) => entry.uuid === vpc.uuid)?.servers, [host.uuid]);
    const [address] = privateIn(await serverInfo(nubis, account.token, host.id));
    assert.ok(address);
    assert.match(address.address, /^10\.\d+\.\d+\.\d+$/);
    assert.equal(address.netmask, '255.255.255.0');

    assert.equal((await attach(account, { server_id: host.id, vpc_id: vpc.id })).status, 202);
    assert.deepEqual(privateIn(await serverInfo(nubis, account.token, host.id)), [address]);
    assert.deepEqual((await list(account)).find((entry) => entry.uuid === vpc.uuid)?.servers, [host.uuid]);
  });

  test('members of one VPC share its /24 with distinct addresses; each VPC of an account has its own /24', async () => {
    const account = await createAccount(nubis);
    const [a, b, c] = [
      await deployServer(nubis, account.token),
      await deployServer(nubis, account.token),
      await deployServer(nubis, account.token),
    ];
    const first = await created(account, { region_id: 101, name: 'first' });
    const second = await created(account, { region_id: 101, name: 'second' });
    for (const host of [a, b])
      assert.equal((await attach(account, { server_id: host.id, vpc_id: first.uuid })).status, 202);
    assert.equal((await attach(account, { server_id: c.id, vpc_id: second.uuid })).status, 202);

    const [addressA, addressB, addressC] = await Promise.all(
      [a, b, c].map(async (host) => privateIn(await serverInfo(nubis, account.token, host.id))[0]!.address),
    );
    assert.notEqual(addressA, addressB);
    assert.equal(slash24(addressA!), slash24(addressB!));
    assert.notEqual(slash24(addressA!), slash24(addressC!));
    assert.deepEqual((await list(account)).find((entry) => entry.uuid === first.uuid)?.servers, [a.uuid, b.uuid]);
  });

  test('servers joining at once each get a distinct address', async () => {
    const account = await createAccount(nubis);
    const hosts = [];
    for (let i = 0; i < 5; i++) hosts.push(await deployServer(nubis, account.token));
    const vpc = await created(account, { region_id: 101, name: 'crowd' });
    const results = await Promise.all(hosts.map((host) => attach(account, { server_id: host.id, vpc_id: vpc.uuid })));
    assert.deepEqual(
      results.map((r) => r.status),
      [202, 202, 202, 202, 202],
    );
    const addresses = await Promise.all(
      hosts.map(async (host) => privateIn(await serverInfo(nubis, account.token, host.id))[0]!.address),
    );
    assert.equal(new Set(addresses).size, 5);
    assert.equal(new Set(addresses.map(slash24)).size, 1);
    assert.deepEqual(
      new Set((await list(account)).find((entry) => entry.uuid === vpc.uuid)?.servers),
      new Set(hosts.map((h) => h.uuid)),
    );
  });

  test('a server may join several VPCs, with one private address in each', async () => {
    const account = await createAccount(nubis);
    const host = await deployServer(nubis, account.token);
    const [one, two] = [
      await created(account, { region_id: 101, name: 'one' }),
      await created(account, { region_id: 101, name: 'two' }),
    ];
    assert.equal((await attach(account, { server_id: host.id, vpc_id: one.uuid })).status, 202);
    assert.equal((await attach(account, { server_id: host.id, vpc_id: two.uuid })).status, 202);
    const addresses = privateIn(await serverInfo(nubis, account.token, host.id));
    assert.equal(addresses.length, 2);
    assert.notEqual(slash24(addresses[0]!.address), slash24(addresses[1]!.address));
  });

  test('detach: 202, the VPC no longer lists the server and its private address goes; detaching again is a 409', async () => {
    const account = await createAccount(nubis);
    const host = await deployServer(nubis, account.token);
    const vpc = await created(account, { region_id: 101, name: 'net' });
    assert.equal((await attach(account, { server_id: host.id, vpc_id: vpc.uuid })).status, 202);

    const detached = await detach(account, { server_id: host.uuid, vpc_id: String(vpc.id) });
    assert.equal(detached.status, 202, JSON.stringify(detached.body));
    assert.deepEqual((await list(account)).find((entry) => entry.uuid === vpc.uuid)?.servers, []);
    assert.deepEqual(privateIn(await serverInfo(nubis, account.token, host.id)), []);
    const again = await detach(account, { server_id: host.id, vpc_id: vpc.uuid });
    assert.equal(again.status, 409);
    assert.match(again.body.errors.reason, /is not attached to VPC/);
  });

  test('a server in another region is a 400 naming server_id', async () => {
    const account = await createAccount(nubis);
    const host = await deployServer(nubis, account.token, { region: 101 });
    const vpc = await created(account, { region_id: 202, name: 'far' });
    const result = await attach(account, { server_id: host.id, vpc_id: vpc.uuid });
    assertFieldErrors(result, ['server_id']);
    assert.match(result.body.errors[0].reason, /region 101.*region 202/);
    assert.deepEqual((await list(account)).find((entry) => entry.uuid === vpc.uuid)?.servers, []);
  });

  test("another account's server answers 404 exactly like a missing one; nobody joins another account's VPC", async () => {
    const bobsServer = await deployServer(nubis, bob.token);
    const vpc = await created(alice, { region_id: 101, name: 'private' });
    const foreign = await attach(alice, { server_id: bobsServer.uuid, vpc_id: vpc.uuid });
    const missing = await attach(alice, { server_id: '00000000-0000-4000-8000-000000000000', vpc_id: vpc.uuid });
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, missing.body);
    assert.equal((await attach(bob, { server_id: bobsServer.id, vpc_id: vpc.uuid })).status, 404);
    assert.deepEqual((await list(alice)).find((entry) => entry.uuid === vpc.uuid)?.servers, []);
    assert.deepEqual(privateIn(await serverInfo(nubis, bob.token, bobsServer.id)), []);
  });

  test('remove refuses a VPC with servers (409); once they are detached it goes', async () => {
    const account = await createAccount(nubis);
    const [a, b] = [await deployServer(nubis, account.token), await deployServer(nubis, account.token)];
    const vpc = await created(account, { region_id: 101, name: 'busy' });
    for (const host of [a, b])
      assert.equal((await attach(account, { server_id: host.id, vpc_id: vpc.uuid })).status, 202);
    const refused = await remove(account, vpc.uuid);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.errors.response, '409 Conflict');
    assert.match(refused.body.errors.reason, /still has 2 servers attached/);
    assert.equal((await detach(account, { server_id: a.id, vpc_id: vpc.uuid })).status, 202);
    assert.match((await remove(account, vpc.uuid)).body.errors.reason, /still has 1 server attached/);
    assert.equal((await detach(account, { server_id: b.id, vpc_id: vpc.uuid })).status, 202);
    assert.equal((await remove(account, vpc.uuid)).status, 204);
  });

  test('a server created with vpc is listed by the VPC; removing the server takes it out', async () => {
    const account = await createAccount(nubis);
    const vpc = await created(account, { region_id: 101, name: 'at create' });
    const host = await deployServer(nubis, account.token, { vpc: vpc.uuid });
    assert.deepEqual((await list(account)).find((entry) => entry.uuid === vpc.uuid)?.servers, [host.uuid]);
    assert.equal(privateIn(await serverInfo(nubis, account.token, host.id)).length, 1);
    assert.equal(
      (await nubis.request('DELETE', `/v1.3/server/remove/${host.id}`, { token: account.token })).status,
      204,
    );
    assert.deepEqual((await list(account)).find((entry) => entry.uuid === vpc.uuid)?.servers, []);
    assert.equal((await remove(account, vpc.uuid)).status, 204);
  });

  test('403 without the vpcs permission', async () => {
    const account = await createAccount(nubis);
    const host = await deployServer(nubis, account.token);
    const vpc = await created(account, { region_id: 101, name: 'net' });
    assert.equal((await attach(account, { server_id: host.id, vpc_id: vpc.uuid })).status, 202);
    await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { permissions: { vpcs: false } });
    assert.equal((await detach(account, { server_id: host.id, vpc_id: vpc.uuid })).status, 403);
    assert.equal((await attach(account, { server_id: host.id, vpc_id: vpc.uuid })).status, 403);
    assert.deepEqual((await list(account)).find((entry) => entry.uuid === vpc.uuid)?.servers, [host.uuid]);
  });
});

describe('removal hold', () => {
  test('a region with a 24-hour hold refuses removal (409) until 24 hours after creation; others do not', async () => {
    const held = await created(alice, { region_id: 201, name: 'held' });
    const free = await created(alice, { region_id: 101, name: 'free' });
    const refused = await remove(alice, held.uuid);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.errors.response, '409 Conflict');
    assert.match(refused.body.errors.reason, /24 hours after creation, until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
    assert.equal((await remove(alice, free.uuid)).status, 204);

    await nubis.advance(23 * 3600);
    assert.equal((await remove(alice, held.uuid)).status, 409);
    await nubis.advance(2 * 3600);
    assert.equal((await remove(alice, held.uuid)).status, 204);
  });
});
