// Rescue mode on real servers: create with an SSH key → write a file over SSH → rescue on → SSH to
// the same address reaches the rescue system, the server's disk at /mnt, a repair made there →
// stop and start in rescue → drift read from the rescue system → rescue off → the server again,
// with the repair → remove while in rescue removes the rescue system too. Run by `npm run test:lxd`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { awaitPower, eventually, lxdSuite, publicAddress, sshEventually } from './support.ts';

const { nubis, alice, lxd, key, addKey, createServer, power: ask } = await lxdSuite({ credit: 500 });

async function status(name: string): Promise<string | null> {
  if (!(await lxd.exists(`/1.0/instances/${name}`))) return null;
  return (await lxd.get<{ status: string }>(`/1.0/instances/${name}`)).status;
}

/** The cloud-init instance id the engine serves the server's guest (LXD's `volatile.cloud-init.instance-id`). */
async function cloudInitId(name: string): Promise<string | undefined> {
  return (await lxd.get<{ config: Record<string, string> }>(`/1.0/instances/${name}`)).config[
    'volatile.cloud-init.instance-id'
  ];
}

async function rescue(uuid: string, enable: boolean) {
  const answer = await nubis.request('POST', '/v1.3/server/rescue', {
    token: alice.token,
    body: { server_id: uuid, enable },
  });
  assert.equal(answer.status, 202, JSON.stringify(answer.body));
  return awaitPower(nubis, alice.token, uuid, 'running');
}

async function power(uuid: string, verb: 'start' | 'stop') {
  await ask(uuid, verb);
  return awaitPower(nubis, alice.token, uuid, verb === 'start' ? 'running' : 'stopped');
}

test('rescue mode: the rescue system on the server’s address, its disk at /mnt, a repair kept', async (t) => {
  const made = await createServer({ hostname: 'broken.example.com', label: 'broken', ssh_key: await addKey() });
  const uuid = made.uuid as string;
  const running = await awaitPower(nubis, alice.token, uuid, 'running');
  const address = publicAddress(running);
  const password = running.info.password as string;
  const own = `nubis-${uuid}`;
  const rescueSystem = `nubis-rescue-${uuid}`;

  const wrote = await sshEventually(
    address,
    { key: key.path },
    'hostname; echo written-by-server > /root/note && sync',
  );
  assert.equal(wrote.stdout.trim(), 'broken.example.com');
  const instanceId = await cloudInitId(own);
  assert.ok(instanceId);

  await t.test('rescue on: the same address answers from the rescue system, the disk at /mnt', async () => {
    const rescued = await rescue(uuid, true);
    assert.ok(rescued.info.features.includes('rescue_mode'));
    assert.equal(publicAddress(rescued), address, 'the address the API shows is kept');
    assert.equal(await status(own), 'Stopped', "the server's own instance is stopped");
    assert.equal(await status(rescueSystem), 'Running');
    const withKey = await sshEventually(
      address,
      { key: key.path },
      'hostname; cat /etc/nubis/rescue; cat /mnt/root/note',
    );
    const [hostname, notice, note] = withKey.stdout.trim().split('\n');
    assert.equal(hostname, 'rescue');
    assert.match(notice ?? '', /rescue system of broken\.example\.com.*\/mnt/);
    assert.equal(note, 'written-by-server');
    const withPassword = await sshEventually(address, { password }, 'hostname');
    assert.equal(withPassword.stdout.trim(), 'rescue', "the server's root password opens the rescue system");
    const repaired = await sshEventually(
      address,
      { key: key.path },
      'echo repaired-in-rescue > /mnt/root/note && touch /mnt/root/new-file && ls -ln /mnt/root/note && sync',
    );
    assert.match(repaired.stdout, /^-\S+\s+\d+\s+0\s+0\s/, 'a file written in rescue belongs to the server’s root');
    // Each server has an id map of its own: the rescue system runs in the server's.
    const maps = await Promise.all(
      [own, rescueSystem].map(
        async (name) => (await lxd.get<{ config: Record<string, string> }>(`/1.0/instances/${name}`)).config,
      ),
    );
    assert.equal(maps[0]!['security.idmap.isolated'], 'true');
    assert.deepEqual(
      JSON.parse(maps[1]!['volatile.idmap.current'] ?? '[]'),
      JSON.parse(maps[0]!['volatile.last_state.idmap'] ?? '[]'),
      "the rescue system's ids are the server's",
    );
  });

  await t.test('rescue on again: the rescue system reboots, the repair stays', async () => {
    // /run is a tmpfs in the rescue system: a reboot empties it.
    await sshEventually(address, { key: key.path }, 'touch /run/before-reboot');
    await rescue(uuid, true);
    const again = await sshEventually(address, { key: key.path }, 'hostname; ls /run; cat /mnt/root/note');
    const lines = again.stdout.trim().split('\n');
    assert.equal(lines[0], 'rescue');
    assert.ok(!lines.includes('before-reboot'), 'the rescue system rebooted');
    assert.equal(lines.at(-1), 'repaired-in-rescue');
  });

  await t.test('stop and start in rescue mode: the rescue system follows', async () => {
    await power(uuid, 'stop');
    assert.equal(await status(rescueSystem), 'Stopped');
    await power(uuid, 'start');
    assert.equal(await status(rescueSystem), 'Running');
    assert.equal(await status(own), 'Stopped');
    const again = await sshEventually(address, { key: key.path }, 'hostname; cat /mnt/root/note');
    assert.deepEqual(again.stdout.trim().split('\n'), ['rescue', 'repaired-in-rescue']);
  });

  await t.test("reconciliation reads the rescue system, not the server's stopped instance", async () => {
    await lxd.run('PUT', `/1.0/instances/${rescueSystem}/state`, { body: { action: 'stop', force: true } });
    await awaitPower(nubis, alice.token, uuid, 'stopped', 30);
    await lxd.run('PUT', `/1.0/instances/${rescueSystem}/state`, { body: { action: 'start' } });
    const back = await awaitPower(nubis, alice.token, uuid, 'running', 30);
    assert.ok(back.info.features.includes('rescue_mode'));
    assert.equal(await status(own), 'Stopped');
  });

  await t.test('rescue off: the server boots on its address with the repair, the rescue system is gone', async () => {
    const back = await rescue(uuid, false);
    assert.ok(!back.info.features.includes('rescue_mode'));
    assert.equal(publicAddress(back), address);
    assert.equal(await status(rescueSystem), null);
    assert.equal(await status(own), 'Running');
    const onServer = await sshEventually(address, { key: key.path }, 'hostname; cat /root/note; ls /root/new-file');
    assert.deepEqual(onServer.stdout.trim().split('\n'), [
      'broken.example.com',
      'repaired-in-rescue',
      '/root/new-file',
    ]);
    const withPassword = await sshEventually(address, { password }, 'hostname');
    assert.equal(withPassword.stdout.trim(), 'broken.example.com');
    // eth0 lent and taken back (LXD makes a new id for each), the server booted as the same instance.
    assert.equal(await cloudInitId(own), instanceId, 'the same cloud-init instance');
  });

  await t.test('reinstall in rescue mode: rescue off, the rescue system gone, a fresh server', async () => {
    await rescue(uuid, true);
    assert.equal(await status(rescueSystem), 'Running');
    const reinstalled = await nubis.request('POST', '/v1.3/server/reinstall', {
      token: alice.token,
      body: { server_id: uuid },
    });
    assert.equal(reinstalled.status, 202, JSON.stringify(reinstalled.body));
    const fresh = await awaitPower(nubis, alice.token, uuid, 'running');
    assert.ok(!fresh.info.features.includes('rescue_mode'));
    assert.equal(await status(rescueSystem), null);
    const onServer = await sshEventually(address, { key: key.path }, 'hostname; ls /root/note 2>&1 || true');
    assert.match(onServer.stdout, /^broken\.example\.com\n.*No such file/s);
    assert.notEqual(await cloudInitId(own), instanceId, 'a new disk is a new cloud-init instance');
  });

  await t.test('remove in rescue mode removes the rescue system too', async () => {
    await rescue(uuid, true);
    assert.equal(await status(rescueSystem), 'Running');
    const removed = await nubis.request('DELETE', `/v1.3/server/remove/${uuid}`, { token: alice.token });
    assert.equal(removed.status, 204);
    await eventually('both instances deleted', 60, async () =>
      (await status(own)) === null && (await status(rescueSystem)) === null ? true : undefined,
    );
    const info = await nubis.request('GET', `/v1.3/server/info/${uuid}`, { token: alice.token });
    assert.equal(info.status, 404);
  });
});

test('rescue asked while the server is being created: it comes up in rescue mode, and leaves it after a half-done job', async () => {
  const made = await createServer({ hostname: 'early.example.com', label: 'early' });
  const uuid = made.uuid as string;
  const rescued = await rescue(uuid, true);
  assert.equal(await status(`nubis-rescue-${uuid}`), 'Running');
  assert.equal(await status(`nubis-${uuid}`), 'Stopped');
  // Whether the rescue came before or after the first boot, the disk shows root's files as root's.
  const owners = await sshEventually(
    publicAddress(rescued),
    { password: rescued.info.password },
    'hostname; stat -c %u /mnt/root /mnt/etc/hostname',
  );
  assert.deepEqual(owners.stdout.trim().split('\n'), ['rescue', '0', '0']);

  // A rescue off whose job stopped half-way (the rescue system deleted, the address not yet given
  // back) is finished by the next one.
  await lxd.run('PUT', `/1.0/instances/nubis-rescue-${uuid}/state`, { body: { action: 'stop', force: true } });
  await lxd.run('DELETE', `/1.0/instances/nubis-rescue-${uuid}`);
  const back = await rescue(uuid, false);
  assert.equal(publicAddress(back), publicAddress(rescued));
  const onServer = await sshEventually(publicAddress(back), { password: back.info.password }, 'hostname');
  assert.equal(onServer.stdout.trim(), 'early.example.com');
});
