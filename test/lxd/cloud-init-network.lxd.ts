// A server on an image that configures its network only through cloud-init (nubis-cloud: no Nubis
// unit runs in it) gets the addresses the API shows from the engine's `cloud-init.network-config`:
// its IPv4 (SSH from the host), its IPv6 with the default route via the gateway `iface.v6` shows,
// once attached, a floating IPv6 that a reboot keeps, and a floating IPv4 attached while it is
// stopped; cloud-init ends its boot with no module in error. sshd starts beside cloud-init's
// network stage: a first login meets the hostname and the host key the server keeps once
// cloud-init's boot is over. Region 102 of the test catalog (an IPv6 pool). Run by `npm run test:lxd`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addressRegion,
  assertCleanFirstBoot,
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

const literal = (text: string) => text.replace(/[.:]/g, '\\$&');

test('a cloud-init-only image gets its IPv4, its IPv6 via the gateway the API shows, and floating IPv6', async (t) => {
  const made = await createServer({
    region: addressRegion.id,
    image: TEST_CLOUD_IMAGE,
    hostname: 'cloud.example.com',
    label: 'cloud',
    ssh_key: await addKey(),
    ipv6_networking: true,
  });
  const uuid = made.uuid as string;
  // The first server of a freshly built image waits for the engine to unpack it (and shift its ids).
  const running = await awaitPower(nubis, alice.token, uuid, 'running', 480).catch(async (error) => {
    const seen = await nubis.admin('GET', `/admin/servers/${uuid}`);
    throw new Error(`${error.message}; engine_error: ${seen.body.engine_error}`);
  });
  const v4 = publicAddress(running);
  const public6 = running.iface?.v6?.find((i: { type: string }) => i.type === 'public');
  assert.ok(public6?.address && public6.gateway, `the server has IPv6: ${JSON.stringify(running.iface)}`);
  const v6 = public6.address as string;
  const gateway6 = public6.gateway as string;
  let firstKey = '';

  await t.test('IPv4: SSH from the host on the address the API shows, set by cloud-init alone', async () => {
    // Debian with systemd boots slower than the busybox image, more so on a busy host.
    const result = await sshEventually(
      v4,
      { key: key.path },
      'hostname; test -e /etc/systemd/system/nubis-first-boot.service && echo nubis-unit; cat /etc/network/interfaces.d/50-cloud-init',
      240,
    );
    firstKey = hostKey(v4);
    const [hostname, ...rest] = result.stdout.split('\n');
    assert.equal(hostname, 'cloud.example.com');
    assert.ok(!result.stdout.includes('nubis-unit'), 'no Nubis unit in the image');
    assert.match(rest.join('\n'), new RegExp(`address ${literal(v4)}/32`), 'cloud-init rendered the static address');
  });

  await t.test('cloud-init ends its boot with no module in error', async () => {
    // Its network stage leaves the host key sshd offered, and nothing restarts sshd.
    await assertCleanFirstBoot(lxd, uuid, v4, firstKey);
  });

  await t.test('IPv6: it answers from the host, its default route via the gateway iface.v6 shows', async () => {
    const result = await sshEventually(
      v6,
      { key: key.path },
      'ip -6 -o addr show dev eth0 scope global; ip -6 route show default',
      60,
    );
    assert.match(result.stdout, new RegExp(` ${literal(v6)}/64 `));
    assert.match(result.stdout, new RegExp(`^default via ${literal(gateway6)} dev eth0`, 'm'));
  });

  await t.test('a floating IPv6 attached while it runs answers, and still does after a reboot', async () => {
    const block = await nubis.request('POST', '/v1.3/floating_ip/create', {
      token: alice.token,
      body: { region_id: addressRegion.id, ip_version: 6 },
    });
    assert.equal(block.status, 201, JSON.stringify(block.body));
    const attached = await nubis.request('PATCH', '/v1.3/floating_ip/attach', {
      token: alice.token,
      body: { server_id: uuid, ip_id: block.body.uuid },
    });
    assert.equal(attached.status, 202, JSON.stringify(attached.body));
    const floating = `${block.body.ip_address}1`;
    const before = await sshEventually(floating, { key: key.path }, "awk '{print $22}' /proc/1/stat", 60);
    // The engine's config follows the change: cloud-init re-reads it at every boot (user data's `updates`).
    const config = await lxd.get<{ config: Record<string, string> }>(`/1.0/instances/nubis-${uuid}`);
    assert.ok(config.config['cloud-init.network-config']?.includes(`${floating}/64`), 'network config kept current');

    await power(uuid, 'reboot');
    const rebooted = await eventually('the server answers on its floating IPv6 after its reboot', 240, async () => {
      const result = ssh(floating, { key: key.path }, "awk '{print $22}' /proc/1/stat");
      return result.code === 0 && result.stdout !== before.stdout ? result : undefined;
    });
    assert.notEqual(rebooted.stdout, before.stdout, 'a new init: the machine rebooted');
    const routes = ssh(v6, { key: key.path }, 'ip -6 route show default');
    assert.match(routes.stdout, new RegExp(`^default via ${literal(gateway6)} dev eth0`, 'm'));
  });

  await t.test(
    'a floating IPv4 attached while it is stopped answers once it starts, with no cloud-init clean',
    async () => {
      const ip = await nubis.request('POST', '/v1.3/floating_ip/create', {
        token: alice.token,
        body: { region_id: addressRegion.id, ip_version: 4 },
      });
      assert.equal(ip.status, 201, JSON.stringify(ip.body));
      const floating = ip.body.ip_address as string;
      await power(uuid, 'stop');
      await awaitPower(nubis, alice.token, uuid, 'stopped');
      const attached = await nubis.request('PATCH', '/v1.3/floating_ip/attach', {
        token: alice.token,
        body: { server_id: uuid, ip_id: ip.body.uuid },
      });
      assert.equal(attached.status, 202, JSON.stringify(attached.body));
      // The change lands in the stopped instance's config; only cloud-init, at the next boot, can apply it.
      await eventually('the stopped instance has the floating IPv4 in its network config', 60, async () => {
        const config = await lxd.get<{ config: Record<string, string> }>(`/1.0/instances/nubis-${uuid}`);
        return config.config['cloud-init.network-config']?.includes(`${floating}/32`) ? true : undefined;
      });
      assert.equal((await lxd.get<{ status: string }>(`/1.0/instances/nubis-${uuid}`)).status, 'Stopped');
      await power(uuid, 'start');
      await awaitPower(nubis, alice.token, uuid, 'running');
      const result = await sshEventually(floating, { key: key.path }, 'hostname', 240);
      assert.equal(result.stdout.trim(), 'cloud.example.com');
    },
  );
});
