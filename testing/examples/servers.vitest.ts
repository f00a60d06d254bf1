// @nubis/testing with Vitest: the same as examples/node-test.test.ts, in Vitest's words.

import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { unwrap } from '@nubis/sdk';
import { startNubis, type Nubis } from '@nubis/testing';

let nubis: Nubis;
beforeAll(async () => {
  nubis = await startNubis({ seed: 'examples' });
});
beforeEach(() => nubis.reset());
afterAll(() => nubis.close());

test('a new server is running once provisioning is over', async () => {
  const alice = await nubis.account();
  const body = { hostname: 'web-1', label: 'web', region: 101, image: 1001, plan: 1 };
  const server = await unwrap(alice.client.POST('/v1.3/server/create', { body }));
  expect(server.power).toBe('provisioning');
  await nubis.advance(60);
  const info = await unwrap(
    alice.client.GET('/v1.3/server/info/{server_id}', { params: { path: { server_id: String(server.id) } } }),
  );
  expect(info.power).toBe('running');
});
