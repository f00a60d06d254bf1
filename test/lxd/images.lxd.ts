// Images that tell the truth on the real engine: an image of an OS family the engine has no image
// of (Windows here) is not listed for the region and is refused at create, naming `image`; an
// application image that runs containers (Docker) gets nesting. Run by `npm run test:lxd`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  awaitPower,
  lxdSuite,
  TEST_DEBIAN_IMAGE,
  TEST_DOCKER_IMAGE,
  TEST_IMAGE,
  TEST_WINDOWS_IMAGE,
} from './support.ts';

const { nubis, alice, lxd, createServer } = await lxdSuite({ credit: 500 });

test('an image the engine cannot boot is not listed for the region, and create refuses it naming image', async () => {
  const list = await nubis.request('GET', '/v1.3/image/list?region_id=101', { token: alice.token });
  assert.equal(list.status, 200, JSON.stringify(list.body));
  // Keyed by image id.
  assert.deepEqual(
    Object.keys(list.body.images)
      .map(Number)
      .sort((a, b) => a - b),
    [TEST_IMAGE, TEST_DEBIAN_IMAGE, TEST_DOCKER_IMAGE],
  );
  const refused = await nubis.request('POST', '/v1.3/server/create', {
    token: alice.token,
    body: { region: 101, image: TEST_WINDOWS_IMAGE, plan: 1, hostname: 'win.example.com', label: 'win' },
  });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.ok(
    (refused.body.errors as { field: string }[]).some((error) => error.field === 'image'),
    JSON.stringify(refused.body),
  );
});

test('an application image that runs containers gets nesting', async () => {
  const made = await createServer({ image: TEST_DOCKER_IMAGE, hostname: 'docker.example.com', label: 'docker' });
  await awaitPower(nubis, alice.token, made.uuid, 'running');
  const instance = await lxd.get<{ config: Record<string, string> }>(`/1.0/instances/nubis-${made.uuid}`);
  assert.equal(instance.config['security.nesting'], 'true');
});
