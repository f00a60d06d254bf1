// Issue 34: emulator tools only where asked for. A production deployment (NUBIS_MODE=server with
// the system clock) refuses reset, saved states and fault rules with a 403 naming the settings, and
// a fault rule left in its storage never touches a customer; an emulator, or a test deployment
// (CLOCK=virtual), keeps them.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { faultRuleRepository } from '../../src/faults/fault.repository.ts';
import { createAccount } from '../support/accounts.ts';
import { startTestInstance, type TestInstance } from '../support/instance.ts';

/** Every emulator tool of the operator API, one call each. */
const tools: [method: string, path: string, body?: unknown][] = [
  ['POST', '/admin/reset'],
  ['POST', '/admin/state/export'],
  ['POST', '/admin/state/import', {}],
  ['POST', '/admin/state/save', { name: 'fixture' }],
  ['POST', '/admin/state/load', { name: 'fixture' }],
  ['GET', '/admin/state'],
  ['DELETE', '/admin/state/fixture'],
  ['POST', '/admin/faults', { match: {}, action: { status: 503 } }],
  ['GET', '/admin/faults'],
  ['DELETE', '/admin/faults/1'],
  ['DELETE', '/admin/faults'],
];

describe('a production deployment (server mode, system clock)', () => {
  let production: TestInstance;
  before(async () => {
    production = await startTestInstance({ CLOCK: 'system' });
  });
  after(() => production.close());

  test('every emulator tool answers 403 naming the settings that turn them on', async () => {
    const account = await createAccount(production);
    for (const [method, path, body] of tools) {
      const answer = await production.admin(method, path, body);
      assert.equal(answer.status, 403, `${method} ${path}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.body.errors.reason, /emulator tools are off: set NUBIS_MODE=emulator or CLOCK=virtual/);
    }
    // The reset above wiped nothing.
    assert.equal((await production.request('GET', '/v1.3/account/info', { token: account.token })).status, 200);
  });

  test('without ADMIN_TOKEN a tool is still a 401 first: the refusal tells a stranger nothing', async () => {
    const answer = await production.request('POST', '/admin/reset', { token: 'not-the-operator-token-000' });
    assert.equal(answer.status, 401);
  });

  test('a fault rule left in storage never answers a customer', async () => {
    // Its own instance, planted before any customer request reads the rules.
    const planted = await startTestInstance({ CLOCK: 'system' });
    try {
      await faultRuleRepository.insert(planted.running.ctx.db, {
        match: { method: null, path: null, operation: null, accountId: null, api: null },
        action: { status: 503, latencyMs: 0, retryAfter: 1, computeFail: false },
        probability: 1,
        remaining: null,
        note: 'planted',
        createdAt: Date.now(),
      });
      const account = await createAccount(planted);
      const info = await planted.request('GET', '/v1.3/account/info', { token: account.token });
      assert.equal(info.status, 200, JSON.stringify(info.body));
      assert.equal(info.headers.get('nubis-fault'), null);
    } finally {
      await planted.close();
    }
  });

  test('the OpenAPI document lists the 403 of every tool', async () => {
    const document = (await production.request('GET', '/openapi.json')).body;
    assert.ok(document.paths['/admin/reset'].post.responses['403']);
    assert.ok(document.paths['/admin/faults'].post.responses['403']);
  });
});

describe('deployments that asked for emulator tools', () => {
  const deployments: Record<string, string>[] = [{ NUBIS_MODE: 'emulator', CLOCK: 'system' }, { CLOCK: 'virtual' }];
  for (const env of deployments) {
    test(`${JSON.stringify(env)}: reset, saved states and fault rules work`, async () => {
      const nubis = await startTestInstance({ ...env, ADMIN_TOKEN: 'test-admin-token-0123456789' });
      try {
        assert.equal((await nubis.admin('POST', '/admin/state/save', { name: 'fixture' })).status, 201);
        assert.equal((await nubis.admin('POST', '/admin/state/load', { name: 'fixture' })).status, 200);
        assert.equal((await nubis.admin('POST', '/admin/faults', { match: {}, action: { status: 503 } })).status, 201);
        assert.equal((await nubis.admin('DELETE', '/admin/faults')).status, 204);
        assert.equal((await nubis.admin('POST', '/admin/reset')).status, 200);
      } finally {
        await nubis.close();
      }
    });
  }
});
