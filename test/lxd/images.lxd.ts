// Images that tell the truth on the real engine: an image of an OS family the engine has no image
// of (Windows here) is not listed for the region and is refused at create, naming `image`; an
// application image that runs containers (Docker) gets nesting. Run by `npm run test:lxd`.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestInstance } from '../support/instance.ts';
import { createAccount, type TestAccount } from '../support/accounts.ts';
import {
  awaitPower,
  engine,
  removeServers,
  startLxdInstance,
  TEST_DOCKER_IMAGE,
  TEST_IMAGE,
  TEST_WINDOWS_IMAGE,
} from './support.ts';

let nubis: TestInstance;
let alice: TestAccount;
const lxd = engine();
const created: string[] = [];

before(async () => {
  nubis = await startLxdInstance();
  alice = await createAccount(nubis, { credit: 500 });
});

after(async () => {
  await removeServers(nubis, alice.token, created, lxd);
  await nubis.close();
  lxd.close();
});

test('an image the engine cannot boot is not listed for the region, and create refuses it naming image', async () => {
  const list = await nubis.request('GET', '/v1.3/image/list?region_id=101', { token: alice.token });
  assert.equal(list.status, 200, JSON.stringify(list.body));
  // Keyed by image id.
  assert.deepEqual(Object.keys(list.body.images).map(Number).sort(), [TEST_IMAGE, TEST_DOCKER_IMAGE]);
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
  const made = await nubis.request('POST', '/v1.3/server/create', {
    token: alice.token,
    body: { region: 101, image: TEST_DOCKER_IMAGE, plan: 1, hostname: 'docker.example.com', label: 'docker' },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  created.push(made.body.uuid);
  await awaitPower(nubis, alice.token, made.body.uuid, 'running');
  const instance = await lxd.get<{ config: Record<string, string> }>(`/1.0/instances/nubis-${made.body.uuid}`);
  assert.equal(instance.config['security.nesting'], 'true');
});
