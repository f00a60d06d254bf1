// nubis-debian, the engine image every catalog image without one of its own runs on: a server made
// on it answers SSH on the address the API shows, with the hostname it was given, root's key and
// the root password the API shows; cloud-init ends its boot with no module in error, sshd starts
// once in that boot (nothing restarts it under a first login) and keeps the host key it first
// offered. Region 101 of the test catalog. Run by `npm run test:lxd`, which builds the image when
// the engine has none of its revision.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assertCleanFirstBoot,
  awaitPower,
  hostKey,
  lxdSuite,
  publicAddress,
  ssh,
  sshEventually,
  TEST_DEBIAN_IMAGE,
} from './support.ts';

const { nubis, alice, lxd, key, addKey, createServer } = await lxdSuite({ credit: 500 });

test('a server on nubis-debian: SSH with its key and password, a clean cloud-init boot', async (t) => {
  const made = await createServer({
    region: 101,
    image: TEST_DEBIAN_IMAGE,
    hostname: 'debian.example.com',
    label: 'debian',
    ssh_key: await addKey(),
  });
  const uuid = made.uuid as string;
  // The first server of a freshly built image waits for the engine to unpack it (and shift its ids).
  const running = await awaitPower(nubis, alice.token, uuid, 'running', 480).catch(async (error) => {
    const seen = await nubis.admin('GET', `/admin/servers/${uuid}`);
    throw new Error(`${error.message}; engine_error: ${seen.body.engine_error}`);
  });
  const address = publicAddress(running);
  let firstKey = '';

  await t.test('root logs in with its key on the address the API shows, and finds its hostname', async () => {
    // Debian with systemd boots slower than the busybox image, more so on a busy host.
    const result = await sshEventually(address, { key: key.path }, 'hostname', 240);
    firstKey = hostKey(address);
    assert.equal(result.stdout.trim(), 'debian.example.com');
  });

  await t.test('cloud-init ends its boot with no module in error; sshd started once, its host key kept', async () => {
    await assertCleanFirstBoot(lxd, uuid, address, firstKey);
  });

  await t.test('the root password the API shows is the one that logs in', async () => {
    const password = running.info.password as string;
    const login = ssh(address, { password }, 'id -un');
    assert.equal(login.code, 0, login.stderr);
    assert.equal(login.stdout.trim(), 'root');
    assert.notEqual(ssh(address, { password: `${password}x` }, 'true').code, 0, 'a wrong password is refused');
  });
});
