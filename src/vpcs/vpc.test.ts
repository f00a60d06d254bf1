// Black-box tests of VPCs: list, create, attach, detach, remove, with every refusal
// (features, funds, permissions, other accounts, region mismatch, members, removal hold).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../test/support/server.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';

let server: TestServer;
let alice: TestAccount;
let bob: TestAccount;

before(async () => {
  server = await startTestServer();
  [alice, bob] = await Promise.all([createAccount(server), createAccount(server)]);
});
after(async () => { await server.close(); });

interface Vpc {
  id: number;
  uuid: string;
  servers: string[];
  name: string;
  region: number;
  created: string;
}

const create = (account: TestAccount, body: unknown) => server.request('POST', '/v1.3/vpc/create', { token: account.token, body });
const remove = (account: TestAccount, ref: string | number) => server.request('DELETE', `/v1.3/vpc/remove/${ref}`, { token: account.token });
const attach = (account: TestAccount, body: unknown) => server.request('PATCH', '/v1.3/vpc/attach', { token: account.token, body });
const detach = (account: TestAccount, body: unknown) => server.request('PATCH', '/v1.3/vpc/detach', { token: account.token, body });
async function list(account: TestAccount): Promise<Vpc[]> {
  const result = await server.request('GET', '/v1.3/vpc/list', { token: account.token });
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

function assertFields(result: { status: number; body: any }, fields: string[]): void {
  assert.equal(result.status, 400, JSON.stringify(result.body));
  assert.deepEqual(result.body.errors.map((e: { field: string }) => e.field).sort(), fields);
}

describe('create', () => {
  test('201 with the uuid; listed with its name, region and no servers', async () => {
    const result = await create(alice, { region_id: 101, name: 'backend' });
    assert.equal(result.status, 201, JSON.stringify(result.body));
    assert.deepEqual(Object.keys(result.body), ['uuid']);
    assert.match(result.body.uuid, /^[0-9a-f-]{36}$/);
    const vpc = (await list(alice)).find((entry) => entry.uuid === result.body.uuid);
    assert.ok(vpc);
    assert.deepEqual({ ...vpc, id: 0, created: '' }, { id: 0, uuid: result.body.uuid, servers: [], name: 'backend', region: 101, created: '' });
    assert.match(vpc.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  test('region by uuid or numeric string', async () => {
    const regions = await server.request('GET', '/v1.3/region/list');
    assert.equal((await created(alice, { region_id: regions.body.regions['202'].uuid, name: 'by uuid' })).region, 202);
    assert.equal((await created(alice, { region_id: '202', name: 'by string' })).region, 202);
  });

  test('an unknown region is a 404; a region without VPCs a 400 naming region_id', async () => {
    const unknown = await create(alice, { region_id: 999, name: 'x' });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.errors.response, '404 Not Found');
    const noFeature = await create(alice, { region_id: 601, name: 'x' });
    assertFields(noFeature, ['region_id']);
    assert.match(noFeature.body.errors[0].reason, /does not offer virtual_private_cloud/);
  });

  test('bad or missing fields are named in one 400', async () => {
    assertFields(await create(alice, {}), ['name', 'region_id']);
    assertFields(await create(alice, { region_id: 101, name: '' }), ['name']);
    assertFields(await create(alice, { region_id: 101, name: 'x'.repeat(101) }), ['name']);
  });

  test('402 when the balance cannot cover the first hour', async () => {
    const indebted = await createAccount(server, { credit: -1 });
    const result = await create(indebted, { region_id: 101, name: 'x' });
    assert.equal(result.status, 402);
    assert.equal(result.body.errors.response, '402 Payment Required');
    assert.deepEqual(await list(indebted), []);
  });

  test('403 for an account not activated or without the vpcs permission; 401 without a token', async () => {
    const dormant = await createAccount(server, { activate: false });
    assert.equal((await create(dormant, { region_id: 101, name: 'x' })).status, 403);
    const limited = await createAccount(server);
    assert.equal((await server.admin('PATCH', `/admin/accounts/${limited.id}`, { permissions: { vpcs: false } })).status, 200);
    const refused = await create(limited, { region_id: 101, name: 'x' });
    assert.equal(refused.status, 403);
    assert.match(refused.body.errors.reason, /vpcs/);
    assert.equal((await server.request('POST', '/v1.3/vpc/create', { body: { region_id: 101, name: 'x' } })).status, 401);
    assert.equal((await server.request('GET', '/v1.3/vpc/list')).status, 401);
  });
});

describe('list', () => {
  test('shows only the caller\'s VPCs, oldest first', async () => {
    const carol = await createAccount(server);
    assert.deepEqual(await list(carol), []);
    const first = await created(carol, { region_id: 101, name: 'one' });
    const second = await created(carol, { region_id: 201, name: 'two' });
    assert.deepEqual((await list(carol)).map((vpc) => vpc.uuid), [first.uuid, second.uuid]);
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

  test('another account\'s VPC answers 404 exactly like a missing one, and stays', async () => {
    const bobs = await created(bob, { region_id: 101, name: 'bob' });
    const foreign = await remove(alice, bobs.uuid);
    const missing = await remove(alice, '00000000-0000-4000-8000-000000000000');
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, missing.body);
    assert.equal((await remove(alice, bobs.id)).status, 404);
    assert.ok((await list(bob)).some((vpc) => vpc.uuid === bobs.uuid));
  });

  test('403 without the vpcs permission', async () => {
    const account = await createAccount(server);
    const vpc = await created(account, { region_id: 101, name: 'kept' });
    await server.admin('PATCH', `/admin/accounts/${account.id}`, { permissions: { vpcs: false } });
    assert.equal((await remove(account, vpc.uuid)).status, 403);
    assert.ok((await list(account)).some((entry) => entry.uuid === vpc.uuid));
  });
});

describe('attach and detach refusals that need no server', () => {
  test('an unknown server or VPC, or another account\'s VPC, is a 404', async () => {
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
    assertFields(await attach(alice, {}), ['server_id', 'vpc_id']);
    assertFields(await detach(alice, { vpc_id: 'x y' }), ['server_id', 'vpc_id']);
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

    await server.advance(23 * 3600);
    assert.equal((await remove(alice, held.uuid)).status, 409);
    await server.advance(2 * 3600);
    assert.equal((await remove(alice, held.uuid)).status, 204);
  });
});
