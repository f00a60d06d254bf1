// Black-box tests of floating IPs: list, create, attach, detach, remove, with every refusal
// (features, funds, permissions, other accounts, region mismatch, removal hold, exhaustion).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { smallCatalogFile } from '../../test/support/network.ts';
import { deployServer, serverInfo, standardServer } from '../../test/support/servers.ts';
import { assertFieldErrors } from '../../test/support/assertions.ts';
import type { FloatingIpObject as FloatingIp } from '../api/v1_3/floating-ip.routes.ts';

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

const create = (account: TestAccount, body: unknown, on: TestInstance = nubis) =>
  on.request('POST', '/v1.3/floating_ip/create', { token: account.token, body });
const remove = (account: TestAccount, ref: string | number, on: TestInstance = nubis) =>
  on.request('DELETE', `/v1.3/floating_ip/remove/${ref}`, { token: account.token });
const attach = (account: TestAccount, body: unknown) =>
  nubis.request('PATCH', '/v1.3/floating_ip/attach', { token: account.token, body });
const detach = (account: TestAccount, body: unknown) =>
  nubis.request('PATCH', '/v1.3/floating_ip/detach', { token: account.token, body });
async function list(account: TestAccount, on: TestInstance = nubis): Promise<FloatingIp[]> {
  const result = await on.request('GET', '/v1.3/floating_ip/list', { token: account.token });
  assert.equal(result.status, 200, JSON.stringify(result.body));
  return result.body.floating_ips;
}
async function created(account: TestAccount, body: unknown, on: TestInstance = nubis): Promise<FloatingIp> {
  const result = await create(account, body, on);
  assert.equal(result.status, 201, JSON.stringify(result.body));
  const ip = (await list(account, on)).find((entry) => entry.uuid === result.body.uuid);
  assert.ok(ip, 'the new floating IP is listed');
  return ip;
}

describe('create', () => {
  test("IPv4: 201 with uuid, ip_address and created; listed as a /32 of the region's pool, unattached", async () => {
    const result = await create(alice, { region_id: 101, ip_version: 4 });
    assert.equal(result.status, 201, JSON.stringify(result.body));
    assert.deepEqual(Object.keys(result.body).sort(), ['created', 'ip_address', 'uuid']);
    assert.match(result.body.ip_address, /^192\.0\.2\.(\d+)$/);
    assert.ok(
      Number(result.body.ip_address.split('.')[3]) >= 2 && Number(result.body.ip_address.split('.')[3]) <= 126,
      'inside 192.0.2.0/25, not network, gateway or broadcast',
    );
    assert.match(result.body.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const listed = (await list(alice)).find((ip) => ip.uuid === result.body.uuid);
    assert.ok(listed);
    assert.deepEqual(
      { ...listed, id: 0 },
      {
        id: 0,
        uuid: result.body.uuid,
        region_id: 101,
        server_id: null,
        address: result.body.ip_address,
        netmask: '255.255.255.255',
        gateway: '192.0.2.1',
        reverse: null,
        prefix: 32,
        created: result.body.created,
        type: 'floating',
      },
    );
    assert.ok(Number.isInteger(listed.id) && listed.id > 0);
  });

  test('IPv6: a whole /64 block, prefix 64', async () => {
    const ip = await created(alice, { region_id: 101, ip_version: 6 });
    assert.match(ip.address, /^2001:db8:101:[0-9a-f]{1,4}::$/);
    assert.equal(ip.prefix, 64);
    assert.equal(ip.netmask, '64');
    assert.equal(ip.type, 'floating');
  });

  test('region by uuid or numeric string and ip_version as a numeric string are accepted', async () => {
    const regions = await nubis.request('GET', '/v1.3/region/list');
    const uuid = regions.body.regions['202'].uuid as string;
    const byUuid = await created(alice, { region_id: uuid, ip_version: 4 });
    assert.equal(byUuid.region_id, 202);
    const byString = await created(alice, { region_id: '202', ip_version: '4' });
    assert.equal(byString.region_id, 202);
    assert.notEqual(byString.address, byUuid.address);
  });

  test('every address is handed out once', async () => {
    const account = await createAccount(nubis);
    const ips = await Promise.all(Array.from({ length: 8 }, () => create(account, { region_id: 102, ip_version: 4 })));
    for (const ip of ips) assert.equal(ip.status, 201, JSON.stringify(ip.body));
    assert.equal(new Set(ips.map((ip) => ip.body.ip_address)).size, 8);
  });

  test('an unknown region is a 404; a region without floating IPs a 400 naming region_id', async () => {
    const unknown = await create(alice, { region_id: 999, ip_version: 4 });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.errors.response, '404 Not Found');
    const noFeature = await create(alice, { region_id: 601, ip_version: 4 });
    assertFieldErrors(noFeature, ['region_id']);
    assert.match(noFeature.body.errors[0].reason, /does not offer floating_ip/);
  });

  test('bad or missing fields are named in one 400', async () => {
    assertFieldErrors(await create(alice, { region_id: 101, ip_version: 5 }), ['ip_version']);
    assertFieldErrors(await create(alice, {}), ['ip_version', 'region_id']);
    assertFieldErrors(await create(alice, { region_id: 'nyc', ip_version: 'four' }), ['ip_version', 'region_id']);
  });

  test('402 when the balance cannot cover the first hour; nothing is taken', async () => {
    const broke = await createAccount(nubis, { credit: 0 });
    const result = await create(broke, { region_id: 101, ip_version: 4 });
    assert.equal(result.status, 402);
    assert.equal(result.body.errors.response, '402 Payment Required');
    assert.deepEqual(await list(broke), []);
  });

  test('403 for an account not activated or without the floating_ips permission; 401 without a token', async () => {
    const dormant = await createAccount(nubis, { activate: false, credit: 10 });
    assert.equal((await create(dormant, { region_id: 101, ip_version: 4 })).status, 403);
    const limited = await createAccount(nubis);
    assert.equal(
      (await nubis.admin('PATCH', `/admin/accounts/${limited.id}`, { permissions: { floating_ips: false } })).status,
      200,
    );
    const refused = await create(limited, { region_id: 101, ip_version: 4 });
    assert.equal(refused.status, 403);
    assert.match(refused.body.errors.reason, /floating_ips/);
    assert.equal(
      (await nubis.request('POST', '/v1.3/floating_ip/create', { body: { region_id: 101, ip_version: 4 } })).status,
      401,
    );
    assert.equal((await nubis.request('GET', '/v1.3/floating_ip/list')).status, 401);
  });
});

describe('billing', () => {
  test('a floating IP is billed from creation until removal ($3.00 a month); a refused create bills nothing', async () => {
    const account = await createAccount(nubis);
    const invoices = async () => {
      const result = await nubis.request('GET', '/v1.3/invoice/list', { token: account.token });
      assert.equal(result.status, 200, JSON.stringify(result.body));
      return (
        result.body.invoices as {
          active: number;
          amount_hr: number;
          amount_mo: number;
          resource_type: string;
          ts_removed: string | null;
        }[]
      ).filter((item) => item.resource_type === 'floating_ip');
    };
    assert.equal((await create(account, { region_id: 601, ip_version: 4 })).status, 400);
    assert.deepEqual(await invoices(), []);

    const ip = await created(account, { region_id: 101, ip_version: 4 });
    const [open] = await invoices();
    assert.ok(open);
    assert.deepEqual(
      { active: open.active, amount_mo: open.amount_mo, amount_hr: open.amount_hr, ts_removed: open.ts_removed },
      { active: 1, amount_mo: 3, amount_hr: 0.00411, ts_removed: null },
    );

    assert.equal((await remove(account, ip.uuid)).status, 204);
    const closed = await invoices();
    assert.equal(closed.length, 1);
    assert.equal(closed[0]!.active, 0);
    assert.match(closed[0]!.ts_removed ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

describe('list', () => {
  test("shows only the caller's floating IPs, oldest first", async () => {
    const carol = await createAccount(nubis);
    assert.deepEqual(await list(carol), []);
    const first = await created(carol, { region_id: 101, ip_version: 4 });
    const second = await created(carol, { region_id: 101, ip_version: 6 });
    assert.deepEqual(
      (await list(carol)).map((ip) => ip.uuid),
      [first.uuid, second.uuid],
    );
    assert.ok(!(await list(alice)).some((ip) => ip.uuid === first.uuid));
  });
});

describe('remove', () => {
  test('by uuid and by id: 204, gone from the list, then 404', async () => {
    const a = await created(alice, { region_id: 101, ip_version: 4 });
    const b = await created(alice, { region_id: 101, ip_version: 6 });
    const removed = await remove(alice, a.uuid);
    assert.equal(removed.status, 204);
    assert.equal(removed.body, null);
    assert.equal((await remove(alice, b.id)).status, 204);
    assert.ok(!(await list(alice)).some((ip) => ip.uuid === a.uuid || ip.uuid === b.uuid));
    assert.equal((await remove(alice, a.uuid)).status, 404);
    assert.equal((await remove(alice, 'nonsense')).status, 404);
  });

  test("another account's floating IP answers 404 exactly like a missing one, and stays", async () => {
    const bobs = await created(bob, { region_id: 101, ip_version: 4 });
    const foreign = await remove(alice, bobs.uuid);
    const missing = await remove(alice, '00000000-0000-4000-8000-000000000000');
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, missing.body);
    assert.equal((await remove(alice, bobs.id)).status, 404);
    assert.ok((await list(bob)).some((ip) => ip.uuid === bobs.uuid));
  });

  test('403 without the floating_ips permission', async () => {
    const account = await createAccount(nubis);
    const ip = await created(account, { region_id: 101, ip_version: 4 });
    await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { permissions: { floating_ips: false } });
    assert.equal((await remove(account, ip.uuid)).status, 403);
    assert.ok((await list(account)).some((entry) => entry.uuid === ip.uuid));
  });
});

describe('attach and detach refusals that need no server', () => {
  test("an unknown server or floating IP, or another account's floating IP, is a 404", async () => {
    const mine = await created(alice, { region_id: 101, ip_version: 4 });
    const bobs = await created(bob, { region_id: 101, ip_version: 4 });
    for (const call of [attach, detach]) {
      const noServer = await call(alice, { server_id: 999999, ip_id: mine.uuid });
      assert.equal(noServer.status, 404);
      assert.match(noServer.body.errors.reason, /server not found/);
      const noIp = await call(alice, { server_id: 1, ip_id: '00000000-0000-4000-8000-000000000000' });
      assert.equal(noIp.status, 404);
      assert.match(noIp.body.errors.reason, /floating IP not found/);
      const foreign = await call(alice, { server_id: 1, ip_id: bobs.uuid });
      assert.equal(foreign.status, 404);
      assert.deepEqual(foreign.body, noIp.body);
    }
  });

  test('missing ids are named in one 400', async () => {
    assertFieldErrors(await attach(alice, {}), ['ip_id', 'server_id']);
    assertFieldErrors(await detach(alice, { server_id: 'x y' }), ['ip_id', 'server_id']);
  });
});

describe('attach and detach', () => {
  interface Iface {
    address: string;
    netmask: string;
    gateway: string;
    type: string;
    reverse: string | null;
  }
  const floatingIn = (info: { iface: { v4: Iface[]; v6: Iface[] | null } }) =>
    [...info.iface.v4, ...(info.iface.v6 ?? [])].filter((entry) => entry.type === 'floating');

  test("attach to the caller's server in the same region: 202, server_id set, the server's iface lists it; again is a no-op", async () => {
    const account = await createAccount(nubis);
    const host = await deployServer(nubis, account.token, { region: 101 });
    const ip = await created(account, { region_id: 101, ip_version: 4 });

    const attached = await attach(account, { server_id: host.uuid, ip_id: ip.uuid });
    assert.equal(attached.status, 202, JSON.stringify(attached.body));
    assert.deepEqual(attached.body, { success: { response: '202 Accepted', reason: '' } });
    assert.equal((await list(account)).find((entry) => entry.uuid === ip.uuid)?.server_id, host.id);
    const info = await serverInfo(nubis, account.token, host.id);
    assert.deepEqual(
      floatingIn(info).map(({ address, netmask, gateway, type }) => ({ address, netmask, gateway, type })),
      [{ address: ip.address, netmask: '255.255.255.255', gateway: ip.gateway, type: 'floating' }],
    );
    assert.equal(info.iface.v4[0].type, 'public');

    assert.equal((await attach(account, { server_id: host.id, ip_id: ip.id })).status, 202);
    assert.equal(floatingIn(await serverInfo(nubis, account.token, host.id)).length, 1);
  });

  test('detach: 202, unattached and gone from iface; detaching again is a 409', async () => {
    const account = await createAccount(nubis);
    const host = await deployServer(nubis, account.token);
    const ip = await created(account, { region_id: 101, ip_version: 4 });
    assert.equal((await attach(account, { server_id: host.id, ip_id: ip.id })).status, 202);

    const detached = await detach(account, { server_id: String(host.id), ip_id: ip.uuid });
    assert.equal(detached.status, 202, JSON.stringify(detached.body));
    assert.equal((await list(account)).find((entry) => entry.uuid === ip.uuid)?.server_id, null);
    assert.deepEqual(floatingIn(await serverInfo(nubis, account.token, host.id)), []);
    const again = await detach(account, { server_id: host.id, ip_id: ip.uuid });
    assert.equal(again.status, 409);
    assert.match(again.body.errors.reason, /not attached to any server/);
  });

  test('attaching an IP attached elsewhere, or detaching it from the wrong server, is a 409 that changes nothing', async () => {
    const account = await createAccount(nubis);
    const [first, second] = [await deployServer(nubis, account.token), await deployServer(nubis, account.token)];
    const ip = await created(account, { region_id: 101, ip_version: 4 });
    assert.equal((await attach(account, { server_id: first.id, ip_id: ip.uuid })).status, 202);

    const elsewhere = await attach(account, { server_id: second.id, ip_id: ip.uuid });
    assert.equal(elsewhere.status, 409);
    assert.equal(elsewhere.body.errors.response, '409 Conflict');
    assert.match(elsewhere.body.errors.reason, new RegExp(`attached to server ${first.id}: detach it first`));
    const wrong = await detach(account, { server_id: second.uuid, ip_id: ip.uuid });
    assert.equal(wrong.status, 409);
    assert.match(wrong.body.errors.reason, new RegExp(`attached to server ${first.id}, not to server ${second.id}`));

    assert.equal((await list(account)).find((entry) => entry.uuid === ip.uuid)?.server_id, first.id);
    assert.equal(floatingIn(await serverInfo(nubis, account.token, first.id)).length, 1);
    assert.deepEqual(floatingIn(await serverInfo(nubis, account.token, second.id)), []);
  });

  test('two concurrent attaches of one IP to different servers: one wins, the other is a 409', async () => {
    const account = await createAccount(nubis);
    const [first, second] = [await deployServer(nubis, account.token), await deployServer(nubis, account.token)];
    const ip = await created(account, { region_id: 101, ip_version: 4 });
    const results = await Promise.all(
      [first, second].map((host) => attach(account, { server_id: host.id, ip_id: ip.uuid })),
    );
    assert.deepEqual(results.map((r) => r.status).sort(), [202, 409]);
    const winner = results[0]!.status === 202 ? first : second;
    assert.equal((await list(account)).find((entry) => entry.uuid === ip.uuid)?.server_id, winner.id);
  });

  test('a server in another region is a 400 naming server_id', async () => {
    const account = await createAccount(nubis);
    const host = await deployServer(nubis, account.token, { region: 101 });
    const ip = await created(account, { region_id: 202, ip_version: 4 });
    const result = await attach(account, { server_id: host.id, ip_id: ip.id });
    assertFieldErrors(result, ['server_id']);
    assert.match(result.body.errors[0].reason, /region 101.*region 202/);
    assert.equal((await list(account)).find((entry) => entry.uuid === ip.uuid)?.server_id, null);
  });

  test("another account's server answers 404 exactly like a missing one", async () => {
    const bobsServer = await deployServer(nubis, bob.token);
    const ip = await created(alice, { region_id: 101, ip_version: 4 });
    const foreign = await attach(alice, { server_id: bobsServer.uuid, ip_id: ip.uuid });
    const missing = await attach(alice, { server_id: '00000000-0000-4000-8000-000000000000', ip_id: ip.uuid });
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body, missing.body);
    assert.equal((await attach(alice, { server_id: bobsServer.id, ip_id: ip.uuid })).status, 404);
    assert.deepEqual(floatingIn(await serverInfo(nubis, bob.token, bobsServer.id)), []);
    // And bob cannot attach alice's IP to his server.
    assert.equal((await attach(bob, { server_id: bobsServer.id, ip_id: ip.uuid })).status, 404);
  });

  test('an IPv6 block needs a server with IPv6 networking; attached, it shows in iface.v6', async () => {
    const account = await createAccount(nubis);
    const v4Only = await deployServer(nubis, account.token);
    const dual = await deployServer(nubis, account.token, { ipv6_networking: true });
    const block = await created(account, { region_id: 101, ip_version: 6 });

    const refused = await attach(account, { server_id: v4Only.id, ip_id: block.uuid });
    assertFieldErrors(refused, ['server_id']);
    assert.match(refused.body.errors[0].reason, /no IPv6 networking/);

    assert.equal((await attach(account, { server_id: dual.id, ip_id: block.uuid })).status, 202);
    const info = await serverInfo(nubis, account.token, dual.id);
    const entry = info.iface.v6.find((e: Iface) => e.type === 'floating');
    assert.deepEqual(
      { address: entry.address, netmask: entry.netmask, type: entry.type },
      { address: block.address, netmask: '64', type: 'floating' },
    );
    assert.ok(!info.iface.v4.some((e: Iface) => e.type === 'floating'));
  });

  test("an IPv6 block's gateway is the one its server's guest uses, in the list as in iface.v6", async () => {
    const account = await createAccount(nubis);
    const dual = await deployServer(nubis, account.token, { ipv6_networking: true });
    const block = await created(account, { region_id: 101, ip_version: 6 });
    // Before it is attached: the region's first bridge, whose gateway is <pool>:0:1::1.
    assert.equal(block.gateway, '2001:db8:101:0:1::1');
    assert.equal((await list(account)).find((entry) => entry.uuid === block.uuid)?.gateway, block.gateway);

    assert.equal((await attach(account, { server_id: dual.id, ip_id: block.uuid })).status, 202);
    const info = await serverInfo(nubis, account.token, dual.id);
    const own = info.iface.v6.find((e: Iface) => e.type === 'public');
    const floating = info.iface.v6.find((e: Iface) => e.type === 'floating');
    assert.equal(floating.gateway, own.gateway);
    assert.equal((await list(account)).find((entry) => entry.uuid === block.uuid)?.gateway, own.gateway);
  });

  test('remove refuses an attached IP with a 409; detached, it goes', async () => {
    const account = await createAccount(nubis);
    const host = await deployServer(nubis, account.token);
    const ip = await created(account, { region_id: 101, ip_version: 4 });
    assert.equal((await attach(account, { server_id: host.id, ip_id: ip.uuid })).status, 202);
    const refused = await remove(account, ip.uuid);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.errors.response, '409 Conflict');
    assert.match(refused.body.errors.reason, /attached to server .*: detach it first/);
    assert.equal((await detach(account, { server_id: host.id, ip_id: ip.uuid })).status, 202);
    assert.equal((await remove(account, ip.uuid)).status, 204);
  });

  test("an attached floating IP not yet named shows the server's hostname its PTR holds; detached, nothing", async () => {
    const account = await createAccount(nubis);
    const host = await deployServer(nubis, account.token);
    const ip = await created(account, { region_id: 101, ip_version: 4 });
    assert.equal((await attach(account, { server_id: host.id, ip_id: ip.uuid })).status, 202);
    const hostname = standardServer.hostname;
    const got = await nubis.request('GET', `/v1.3/rdns/get/${host.id}?ip=${ip.address}`, { token: account.token });
    assert.equal(got.status, 202, JSON.stringify(got.body));
    assert.equal(got.body.ip, ip.address);
    assert.equal(got.body.rdns, hostname);
    assert.equal(floatingIn(await serverInfo(nubis, account.token, host.id))[0]?.reverse, hostname);
    // The list's field is the name set through rdns/put: none yet.
    assert.equal((await list(account)).find((entry) => entry.uuid === ip.uuid)?.reverse, null);
    assert.equal((await detach(account, { server_id: host.id, ip_id: ip.uuid })).status, 202);
    assert.deepEqual(floatingIn(await serverInfo(nubis, account.token, host.id)), []);
  });

  test('reverse is set through rdns/put for the floating address and shown in the list and iface', async () => {
    const account = await createAccount(nubis);
    const host = await deployServer(nubis, account.token);
    const ip = await created(account, { region_id: 101, ip_version: 4 });
    assert.equal((await attach(account, { server_id: host.id, ip_id: ip.uuid })).status, 202);
    const put = await nubis.request('PUT', '/v1.3/rdns/put', {
      token: account.token,
      body: { server_id: host.id, ip: ip.address, rdns: 'mail.example.com' },
    });
    assert.equal(put.status, 202, JSON.stringify(put.body));
    assert.equal((await list(account)).find((entry) => entry.uuid === ip.uuid)?.reverse, 'mail.example.com');
    assert.equal(floatingIn(await serverInfo(nubis, account.token, host.id))[0]?.reverse, 'mail.example.com');
  });

  test('removing the server leaves the floating IP unattached and removable', async () => {
    const account = await createAccount(nubis);
    const host = await deployServer(nubis, account.token);
    const ip = await created(account, { region_id: 101, ip_version: 4 });
    assert.equal((await attach(account, { server_id: host.id, ip_id: ip.uuid })).status, 202);
    assert.equal(
      (await nubis.request('DELETE', `/v1.3/server/remove/${host.id}`, { token: account.token })).status,
      204,
    );
    assert.equal((await list(account)).find((entry) => entry.uuid === ip.uuid)?.server_id, null);
    assert.equal((await remove(account, ip.uuid)).status, 204);
  });

  test('403 without the floating_ips permission', async () => {
    const account = await createAccount(nubis);
    const host = await deployServer(nubis, account.token);
    const ip = await created(account, { region_id: 101, ip_version: 4 });
    assert.equal((await attach(account, { server_id: host.id, ip_id: ip.uuid })).status, 202);
    await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { permissions: { floating_ips: false } });
    assert.equal((await detach(account, { server_id: host.id, ip_id: ip.uuid })).status, 403);
    assert.equal((await attach(account, { server_id: host.id, ip_id: ip.uuid })).status, 403);
    assert.equal((await list(account)).find((entry) => entry.uuid === ip.uuid)?.server_id, host.id);
  });
});

describe('removal hold', () => {
  test('a region with a 24-hour hold refuses removal (409) until 24 hours after creation; others do not', async () => {
    const held = await created(alice, { region_id: 201, ip_version: 4 });
    const free = await created(alice, { region_id: 101, ip_version: 4 });
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

describe('with a small pool and a region without IPv6 (CATALOG_FILE)', () => {
  let small: TestInstance;
  let account: TestAccount;
  before(async () => {
    small = await startTestInstance({ CATALOG_FILE: smallCatalogFile() });
    account = await createAccount(small);
  });
  after(async () => {
    await small.close();
  });

  test('a full pool is a 409 naming the region; a removed address can be taken again', async () => {
    // 192.0.2.0/29 less network, gateway and broadcast: five addresses.
    const taken: FloatingIp[] = [];
    for (let i = 0; i < 5; i++) taken.push(await created(account, { region_id: 101, ip_version: 4 }, small));
    assert.deepEqual(taken.map((ip) => ip.address).sort(), [
      '192.0.2.2',
      '192.0.2.3',
      '192.0.2.4',
      '192.0.2.5',
      '192.0.2.6',
    ]);
    const full = await create(account, { region_id: 101, ip_version: 4 }, small);
    assert.equal(full.status, 409);
    assert.match(full.body.errors.reason, /no free IPv4 address left in region 101/);
    assert.equal((await list(account, small)).length, 5);

    assert.equal((await remove(account, taken[2]!.uuid, small)).status, 204);
    const again = await created(account, { region_id: 101, ip_version: 4 }, small);
    assert.equal(again.address, taken[2]!.address);
  });

  test('ip_version 6 in a region without ipv6 is a 400 naming ip_version', async () => {
    const result = await create(account, { region_id: 102, ip_version: 6 }, small);
    assertFieldErrors(result, ['ip_version']);
    assert.match(result.body.errors[0].reason, /does not offer ipv6/);
    assert.equal((await create(account, { region_id: 102, ip_version: 4 }, small)).status, 201);
  });
});
