// What a client sees of an account, read over HTTP: the lists a saved state must reproduce
// exactly (used by the saved-state tests on one database and across databases).

import assert from 'node:assert/strict';
import type { TestInstance } from './instance.ts';
import { deployServer, ecdsaPublicKey } from './servers.ts';

const lists = [
  '/v1.3/server/list',
  '/v1.3/ssh_key/list',
  '/v1.3/floating_ip/list',
  '/v1.3/snapshot/list',
  '/v1.3/vpc/list',
  '/v1.3/transaction/list',
  '/v1.3/account/token_list',
];

/** Every list of the account, by path, as the API answers it. */
export async function accountViews(nubis: TestInstance, token: string): Promise<Record<string, unknown>> {
  const views: Record<string, unknown> = {};
  for (const path of lists) {
    const answer = await nubis.request('GET', path, { token });
    assert.equal(answer.status, 200, `${path}: ${JSON.stringify(answer.body)}`);
    views[path] = answer.body;
  }
  // Reading the lists uses the token: its last use is the one field the reading itself moves.
  for (const token of (views['/v1.3/account/token_list'] as { tokens: { last_used?: unknown }[] }).tokens)
    delete token.last_used;
  const info = await nubis.request('GET', '/v1.3/account/info', { token });
  assert.equal(info.status, 200);
  views.account = { id: info.body.id, uuid: info.body.uuid, email: info.body.email, profile: info.body.profile };
  return views;
}

/** An account with one of everything: a server, an SSH key, a floating IP, a snapshot, a VPC. */
export async function furnish(nubis: TestInstance, token: string): Promise<void> {
  const created = await deployServer(nubis, token);
  const key = await nubis.request('POST', '/v1.3/ssh_key/create', {
    token,
    body: { name: 'laptop', public_key: ecdsaPublicKey() },
  });
  assert.equal(key.status, 201, JSON.stringify(key.body));
  const ip = await nubis.request('POST', '/v1.3/floating_ip/create', {
    token,
    body: { region_id: 101, ip_version: 4 },
  });
  assert.equal(ip.status, 201, JSON.stringify(ip.body));
  const vpc = await nubis.request('POST', '/v1.3/vpc/create', { token, body: { region_id: 101, name: 'backend' } });
  assert.equal(vpc.status, 201, JSON.stringify(vpc.body));
  const snapshot = await nubis.request('POST', '/v1.3/snapshot/create', {
    token,
    body: { name: 'before upgrade', server_id: created.id },
  });
  assert.ok(snapshot.status === 201 || snapshot.status === 202, JSON.stringify(snapshot.body));
  await nubis.advance(600);
}
