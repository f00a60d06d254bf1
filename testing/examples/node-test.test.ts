// @nubis/testing with node:test: one Nubis for the file, reset before each test. Seeded, so
// every test sees the same ids, tokens and timestamps run after run.

import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { type NubisError, unwrap } from '@nubis/sdk';
import { startNubis, type Nubis } from '@nubis/testing';

let nubis: Nubis;
before(async () => {
  nubis = await startNubis({ seed: 'examples' });
});
beforeEach(() => nubis.reset());
after(() => nubis.close());

const web = { hostname: 'web-1', label: 'web', region: 101, image: 1001, plan: 1 };

test('a new server is running once provisioning is over', async () => {
  const alice = await nubis.account();
  const server = await unwrap(alice.client.POST('/v1.3/server/create', { body: web }));
  assert.equal(server.power, 'provisioning');
  await nubis.advance(60);
  const info = await unwrap(
    alice.client.GET('/v1.3/server/info/{server_id}', { params: { path: { server_id: String(server.id) } } }),
  );
  assert.equal(info.power, 'running');
});

test('an overloaded cloud answers 503 once; the retry succeeds', async () => {
  const alice = await nubis.account();
  await nubis.fault({ match: { operation: 'createServer' }, action: { status: 503, retry_after: 1 }, times: 1 });
  await assert.rejects(unwrap(alice.client.POST('/v1.3/server/create', { body: web })), (error: NubisError) => {
    assert.equal(error.status, 503);
    return true;
  });
  assert.equal((await unwrap(alice.client.POST('/v1.3/server/create', { body: web }))).power, 'provisioning');
});

test('after a reset, the same requests give the same answers', async () => {
  const first = await nubis.account();
  await nubis.reset();
  const again = await nubis.account();
  assert.deepEqual(again, { ...first, client: again.client });
  assert.equal(again.email, 'user-1@example.com');
});
