// Real servers on LXD, end to end: create with an SSH key → running → SSH to the address the API
// shows (key and root password) → hostname → stop/start → resize → snapshot, restore, a server
// from the snapshot → VPC reachability → floating IP → drift → remove. Run by `npm run test:lxd`.

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { test } from 'node:test';
import {
  awaitPower,
  eventually,
  lxdSuite,
  privateAddress,
  publicAddress,
  sendFromGuest,
  serverInfo,
  ssh,
  sshEventually,
  testPool,
} from './support.ts';

/** Engine networks of the VPCs made here: the test server goes, so the suite deletes them itself. */
const vpcNetworks: string[] = [];
// The script a server's script_url names, served on the region bridge's host address (the only
// address besides loopback this suite sends traffic to).
const gateway = testPool.replace(/\.0\/\d+$/, '.1');
const scripts: Server = createServer((_request, response) => {
  response.end('#!/bin/sh\necho "ran as $(id -u)" > /root/script-ran\n');
});
await new Promise<void>((resolve) => scripts.listen(0, gateway, resolve));
const scriptUrl = `http://${gateway}:${(scripts.address() as { port: number }).port}/boot.sh`;

const {
  nubis,
  alice,
  lxd,
  key,
  addKey,
  createServer: create,
  power,
} = await lxdSuite({
  credit: 500,
  async cleanUp() {
    for (const network of vpcNetworks) await lxd.call('DELETE', `/1.0/networks/${network}`).catch(() => {});
    scripts.close();
  },
});

/** A root disk's size and I/O ceiling, as the engine has them. */
function pick(root: Record<string, string> | undefined): (string | undefined)[] {
  return [root?.size, root?.['limits.read'], root?.['limits.write']];
}

async function instance(uuid: string) {
  return lxd.get<{ status: string; config: Record<string, string>; devices: Record<string, Record<string, string>> }>(
    `/1.0/instances/nubis-${uuid}`,
  );
}

test('a server is a machine: SSH, power, resize, snapshot, VPC, floating IP, drift, remove', async (t) => {
  const keyUuid = await addKey();
  const made = await create({ hostname: 'first.example.com', label: 'first', ssh_key: keyUuid, script_url: scriptUrl });
  assert.equal(made.power, 'provisioning');

  const running = await awaitPower(nubis, alice.token, made.uuid, 'running');
  const address = publicAddress(running);
  const password = running.info.password as string;

  await t.test('SSH with the key and with the root password; hostname is the server’s', async () => {
    const withKey = await sshEventually(address, { key: key.path }, 'hostname');
    assert.equal(withKey.stdout.trim(), 'first.example.com');
    const withPassword = await sshEventually(address, { password }, 'hostname');
    assert.equal(withPassword.stdout.trim(), 'first.example.com');
    assert.notEqual(ssh(address, { password: `${password}x` }, 'true').code, 0, 'a wrong password is refused');
  });

  await t.test('script_url: fetched and run by the guest at first boot', async () => {
    const ran = await sshEventually(address, { key: key.path }, 'cat /root/script-ran', 30);
    assert.equal(ran.stdout.trim(), 'ran as 0');
  });

  await t.test("bandwidth: the NIC counters show in the server's usage", async () => {
    const before = (await serverInfo(nubis, alice.token, made.uuid)).bandwidth.usage as number;
    // 40 MiB from the guest to the host (what a server sends is metered).
    await sendFromGuest(lxd, made.uuid, 40);
    await eventually('bandwidth counted', 30, async () => {
      const usage = (await serverInfo(nubis, alice.token, made.uuid)).bandwidth.usage as number;
      return usage >= before + 0.03 ? usage : undefined;
    });
  });

  await t.test('stop and start: the instance follows', async () => {
    await power(made.uuid, 'stop');
    await awaitPower(nubis, alice.token, made.uuid, 'stopped');
    assert.equal((await instance(made.uuid)).status, 'Stopped');
    await power(made.uuid, 'start');
    await awaitPower(nubis, alice.token, made.uuid, 'running');
    assert.equal((await instance(made.uuid)).status, 'Running');
    await sshEventually(address, { key: key.path }, 'true');
  });

  await t.test('resize: the instance limits follow the plan', async () => {
    // The quota pool: the root disk is the plan's (plan 1: 25 GB), with its I/O ceiling.
    assert.deepEqual(pick((await instance(made.uuid)).devices.root), ['25GiB', '100MB', '50MB']);
    const resized = await nubis.request('POST', '/v1.3/server/resize', {
      token: alice.token,
      body: { server_id: made.uuid, plan_id: 4 },
    });
    assert.equal(resized.status, 202, JSON.stringify(resized.body));
    await awaitPower(nubis, alice.token, made.uuid, 'running');
    const config = (await instance(made.uuid)).config;
    assert.equal(config['limits.cpu'], '2');
    assert.equal(config['limits.memory'], '2048MiB');
    assert.equal(config['limits.processes'], '1024');
    // The disk grows to plan 4's 60 GB; two vCPUs, twice the I/O.
    assert.deepEqual(pick((await instance(made.uuid)).devices.root), ['60GiB', '200MB', '100MB']);
    await sshEventually(address, { key: key.path }, 'true');
  });

  let snapshotUuid = '';
  await t.test('snapshot, restore, and a server from the snapshot keep a file written before it', async () => {
    await sshEventually(address, { key: key.path }, 'echo kept-by-snapshot > /root/marker && sync');
    const snap = await nubis.request('POST', '/v1.3/snapshot/create', {
      token: alice.token,
      body: { name: 'before', server_id: made.uuid },
    });
    assert.equal(snap.status, 201, JSON.stringify(snap.body));
    snapshotUuid = snap.body.uuid;
    await eventually('snapshot completed', 180, async () => {
      const list = await nubis.request('GET', '/v1.3/snapshot/list', { token: alice.token });
      const entry = list.body.snapshots.find((s: { uuid: string }) => s.uuid === snapshotUuid);
      return entry?.status === 'completed' ? entry : undefined;
    });
    await awaitPower(nubis, alice.token, made.uuid, 'running');
    assert.ok(await lxd.exists(`/1.0/images/aliases/nubis-snap-${snapshotUuid}`), 'the snapshot is an engine image');

    await sshEventually(address, { key: key.path }, 'rm /root/marker');
    const restored = await nubis.request('PATCH', '/v1.3/snapshot/restore', {
      token: alice.token,
      body: { snapshot_id: snapshotUuid, server_id: made.uuid },
    });
    assert.equal(restored.status, 202, JSON.stringify(restored.body));
    await awaitPower(nubis, alice.token, made.uuid, 'running');
    const marker = await sshEventually(address, { key: key.path }, 'cat /root/marker');
    assert.equal(marker.stdout.trim(), 'kept-by-snapshot');
    assert.equal(publicAddress(await serverInfo(nubis, alice.token, made.uuid)), address, 'the address is kept');

    const copy = await create({
      hostname: 'copy.example.com',
      label: 'copy',
      image_type: 'snapshot',
      image: snapshotUuid,
    });
    const copyInfo = await awaitPower(nubis, alice.token, copy.uuid, 'running');
    const copyAddress = publicAddress(copyInfo);
    assert.notEqual(copyAddress, address);
    const fromCopy = await sshEventually(
      copyAddress,
      { password: copyInfo.info.password },
      'hostname; cat /root/marker',
    );
    assert.deepEqual(fromCopy.stdout.trim().split('\n'), ['copy.example.com', 'kept-by-snapshot']);
  });

  await t.test('reinstall: a fresh disk and a new root password, the same address', async () => {
    const before = await serverInfo(nubis, alice.token, made.uuid);
    const reinstalled = await nubis.request('POST', '/v1.3/server/reinstall', {
      token: alice.token,
      body: { server_id: made.uuid },
    });
    assert.equal(reinstalled.status, 202, JSON.stringify(reinstalled.body));
    const after = await awaitPower(nubis, alice.token, made.uuid, 'running');
    assert.notEqual(after.info.password, before.info.password);
    assert.equal(publicAddress(after), address);
    const fresh = await sshEventually(
      address,
      { password: after.info.password },
      'hostname; ls /root/marker 2>&1 || true',
    );
    assert.match(fresh.stdout, /^first\.example\.com\n.*No such file/s);
    assert.notEqual(ssh(address, { password: before.info.password }, 'true').code, 0, 'the old password is gone');
    await sshEventually(address, { key: key.path }, 'true');
  });

  await t.test(
    'a VPC: members reach each other, a non-member does not; one joining keeps its instance id',
    async () => {
      const vpc = await nubis.request('POST', '/v1.3/vpc/create', {
        token: alice.token,
        body: { region_id: 101, name: 'net' },
      });
      assert.equal(vpc.status, 201, JSON.stringify(vpc.body));
      vpcNetworks.push(`nv-${(vpc.body.uuid as string).replace(/-/g, '').slice(0, 12)}`);
      const a = await create({ hostname: 'a.example.com', label: 'a', vpc: vpc.body.uuid, ssh_key: keyUuid });
      const b = await create({ hostname: 'b.example.com', label: 'b', vpc: vpc.body.uuid });
      const aInfo = await awaitPower(nubis, alice.token, a.uuid, 'running');
      const bInfo = await awaitPower(nubis, alice.token, b.uuid, 'running');
      const bPrivate = privateAddress(bInfo);
      // TTL 1: the probe never leaves the VPC's own bridge, whatever the host forwards.
      const member = await sshEventually(publicAddress(aInfo), { key: key.path }, `ping -c 1 -W 2 -t 1 ${bPrivate}`);
      assert.equal(member.code, 0);
      const outsider = ssh(address, { key: key.path }, `ping -c 1 -W 2 -t 1 ${bPrivate}`);
      assert.notEqual(outsider.code, 0, 'a server outside the VPC cannot reach a member');
      assert.equal(ssh(address, { key: key.path }, `ping -c 1 -W 2 -t 1 ${privateAddress(aInfo)}`).code === 0, false);

      // A NIC hot-plugged and unplugged makes LXD give the instance a new cloud-init instance id;
      // the server keeps its own (a new one would make cloud-init take it for a new server at its next boot).
      const instance = `/1.0/instances/nubis-${made.uuid}`;
      const engineView = () => lxd.get<{ config: Record<string, string>; devices: Record<string, unknown> }>(instance);
      const id = (await engineView()).config['volatile.cloud-init.instance-id'];
      for (const [verb, present] of [
        ['attach', true],
        ['detach', false],
      ] as const) {
        const asked = await nubis.request('PATCH', `/v1.3/vpc/${verb}`, {
          token: alice.token,
          body: { server_id: made.uuid, vpc_id: vpc.body.uuid },
        });
        assert.ok(asked.status < 300, JSON.stringify(asked.body));
        await eventually(
          `${verb}: the VPC NIC ${present ? 'plugged' : 'unplugged'}, the instance id kept`,
          60,
          async () => {
            const seen = await engineView();
            return Boolean(seen.devices.eth1) === present && seen.config['volatile.cloud-init.instance-id'] === id
              ? true
              : undefined;
          },
        );
      }
    },
  );

  await t.test('a floating IP attached answers on its address', async () => {
    const ip = await nubis.request('POST', '/v1.3/floating_ip/create', {
      token: alice.token,
      body: { region_id: 101, ip_version: 4 },
    });
    assert.equal(ip.status, 201, JSON.stringify(ip.body));
    const attached = await nubis.request('PATCH', '/v1.3/floating_ip/attach', {
      token: alice.token,
      body: { server_id: made.uuid, ip_id: ip.body.uuid },
    });
    assert.equal(attached.status, 202, JSON.stringify(attached.body));
    const viaFloating = await sshEventually(ip.body.ip_address, { key: key.path }, 'hostname', 60);
    assert.equal(viaFloating.stdout.trim(), 'first.example.com');
  });

  await t.test('drift: an instance stopped in the engine shows stopped after reconciliation', async () => {
    await lxd.run('PUT', `/1.0/instances/nubis-${made.uuid}/state`, { body: { action: 'stop', force: true } });
    await awaitPower(nubis, alice.token, made.uuid, 'stopped', 30);
  });

  await t.test('remove: the instance is gone, the snapshot image stays', async () => {
    const removed = await nubis.request('DELETE', `/v1.3/server/remove/${made.uuid}`, { token: alice.token });
    assert.equal(removed.status, 204);
    await eventually('instance deleted', 60, async () =>
      (await lxd.exists(`/1.0/instances/nubis-${made.uuid}`)) ? undefined : true,
    );
    assert.ok(await lxd.exists(`/1.0/images/aliases/nubis-snap-${snapshotUuid}`));
    const gone = await nubis.request('DELETE', `/v1.3/snapshot/remove/${snapshotUuid}`, { token: alice.token });
    assert.equal(gone.status, 204, JSON.stringify(gone.body));
    await eventually('snapshot image deleted', 60, async () =>
      (await lxd.exists(`/1.0/images/aliases/nubis-snap-${snapshotUuid}`)) ? undefined : true,
    );
  });
});
