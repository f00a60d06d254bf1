// A server keeps its cloud-init instance across what changes its engine config: LXD gives an
// instance a new `volatile.cloud-init.instance-id` when a NIC is added or removed or a
// `cloud-init.*` key changes (a floating IP attached rewrites `cloud-init.network-config`), and at
// the next boot cloud-init would take the server for a new one: set-passwords putting back the root
// password it was created with, the image's unit making new host keys. After a floating IP is
// attached and the server rebooted: the password its owner set is the one that logs in, the host key
// and the instance id cloud-init sees are the same, and the floating IP answers. A server made from
// its snapshot is a new instance all the same: its own hostname, password, host key and instance id.
// nubis-cloud in region 102 of the test catalog. Run by `npm run test:lxd`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonBody } from '../support/instance.ts';
import {
  addressRegion,
  awaitPower,
  eventually,
  hostKey,
  lxdSuite,
  publicAddress,
  ssh,
  sshEventually,
  TEST_CLOUD_IMAGE,
} from './support.ts';

const { nubis, alice, lxd, key, addKey, createServer, power } = await lxdSuite({ credit: 500 });

/** What cloud-init recorded of the instance it last booted as, once its boot is over. */
async function cloudInitInstance(uuid: string): Promise<string> {
  const status = await lxd.exec(`nubis-${uuid}`, ['cloud-init', 'status', '--wait', '--long']);
  assert.match(status.stdout, /^status: done$/m, `${status.stdout}${status.stderr}`);
  const id = await lxd.exec(`nubis-${uuid}`, ['cat', '/var/lib/cloud/data/instance-id']);
  assert.equal(id.code, 0, id.stderr);
  return id.stdout.trim();
}

const changed = 'the password its owner set';

/**
 * Whether `password` is root's, as login checks it (the console's login: nubis-cloud's sshd keeps
 * Debian's `PermitRootLogin prohibit-password`): crypt(3) of it with the salt of root's hash.
 */
async function isRootPassword(uuid: string, password: string): Promise<boolean> {
  const check =
    "import crypt, sys\nhash = next(l for l in open('/etc/shadow') if l.startswith('root:')).split(':')[1]\nprint(crypt.crypt(sys.argv[1], hash) == hash)";
  const result = await lxd.exec(`nubis-${uuid}`, ['python3', '-W', 'ignore', '-c', check, password]);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout.trim() === 'True';
}

test('a floating IP attached and a reboot leave the server its password, host key and instance', async (t) => {
  const made = await createServer({
    region: addressRegion.id,
    image: TEST_CLOUD_IMAGE,
    hostname: 'kept.example.com',
    label: 'kept',
    ssh_key: await addKey(),
  });
  const uuid = made.uuid as string;
  // The first server of a freshly built image waits for the engine to unpack it (and shift its ids).
  const running = await awaitPower(nubis, alice.token, uuid, 'running', 480);
  const address = publicAddress(running);
  const created = running.info.password as string;
  await sshEventually(address, { key: key.path }, 'true', 240);
  // cloud-init's first boot over (set-passwords has run), the owner changes root's password.
  const instance = await cloudInitInstance(uuid);
  const firstKey = hostKey(address);
  const set = ssh(address, { key: key.path }, 'chpasswd', Buffer.from(`root:${changed}\n`));
  assert.equal(set.code, 0, set.stderr);
  assert.ok(await isRootPassword(uuid, changed), "the changed password is root's");
  assert.ok(!(await isRootPassword(uuid, created)), 'the created one no longer is');

  const ip = await nubis.request('POST', '/v1.3/floating_ip/create', {
    token: alice.token,
    body: { region_id: addressRegion.id, ip_version: 4 },
  });
  assert.equal(ip.status, 201, JSON.stringify(ip.body));
  const floating = ip.body.ip_address as string;
  const attached = await nubis.request('PATCH', '/v1.3/floating_ip/attach', {
    token: alice.token,
    body: { server_id: uuid, ip_id: ip.body.uuid },
  });
  assert.equal(attached.status, 202, JSON.stringify(attached.body));
  const before = await sshEventually(floating, { key: key.path }, "awk '{print $22}' /proc/1/stat", 60);

  await power(uuid, 'reboot');
  await eventually('the server answers on its floating IPv4 after its reboot', 240, async () => {
    const result = ssh(floating, { key: key.path }, "awk '{print $22}' /proc/1/stat");
    return result.code === 0 && result.stdout !== before.stdout ? result : undefined;
  });

  await t.test('cloud-init booted it as the same instance', async () => {
    assert.equal(await cloudInitInstance(uuid), instance);
  });
  await t.test("the password its owner set is root's, the one it was created with is not", async () => {
    assert.ok(await isRootPassword(uuid, changed), "the changed password is root's");
    assert.ok(!(await isRootPassword(uuid, created)), 'the created password is not');
  });
  await t.test('sshd offers the same host key', () => {
    assert.equal(hostKey(address), firstKey);
  });
  await t.test("root's key is authorized once, as before", () => {
    const keys = ssh(address, { key: key.path }, 'grep -c nubis-test /root/.ssh/authorized_keys');
    assert.equal(keys.stdout.trim(), '1', keys.stderr);
  });

  await t.test('a server made from its snapshot is a new instance: its hostname, password, host key', async () => {
    const snap = await nubis.request('POST', '/v1.3/snapshot/create', {
      token: alice.token,
      body: { name: 'kept', server_id: uuid },
    });
    assert.equal(snap.status, 201, JSON.stringify(snap.body));
    const taken = await eventually('the snapshot is taken', 300, async () => {
      const list = await nubis.request('GET', '/v1.3/snapshot/list', { token: alice.token });
      const entry = list.body.snapshots.find((s: JsonBody) => s.uuid === snap.body.uuid);
      return entry?.status === 'processing' ? undefined : entry;
    });
    assert.equal(taken.status, 'completed');
    const copy = await createServer({
      region: addressRegion.id,
      image_type: 'snapshot',
      image: snap.body.uuid,
      hostname: 'copy.example.com',
      label: 'copy',
    });
    const copyRunning = await awaitPower(nubis, alice.token, copy.uuid, 'running', 480);
    const copyAddress = publicAddress(copyRunning);
    const hostname = await sshEventually(copyAddress, { key: key.path }, 'hostname', 240);
    assert.notEqual(await cloudInitInstance(copy.uuid), instance);
    assert.equal(hostname.stdout.trim(), 'copy.example.com');
    assert.ok(await isRootPassword(copy.uuid, copyRunning.info.password), 'its own password');
    assert.ok(!(await isRootPassword(copy.uuid, changed)), "not the source's password");
    assert.notEqual(hostKey(copyAddress), firstKey, "not the source's host key");
  });
});
