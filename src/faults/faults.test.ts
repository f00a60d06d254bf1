// Fault injection (issue 16): rules added through the operator API make exactly the matching
// customer requests fail, in the error shape of the API they called, and stop when used up.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, SETTLE_SECONDS, serverInfo, standardServer } from '../../test/support/servers.ts';

let nubis: TestInstance;
let alice: TestAccount;
let bob: TestAccount;

before(async () => {
  nubis = await startTestInstance();
  [alice, bob] = await Promise.all([createAccount(nubis), createAccount(nubis)]);
});
after(() => nubis.close());

async function addRule(body: Record<string, unknown>) {
  const added = await nubis.admin('POST', '/admin/faults', body);
  assert.equal(added.status, 201, JSON.stringify(added.body));
  return added.body as { id: number };
}

async function ruleState(id: number) {
  const list = await nubis.admin('GET', '/admin/faults');
  assert.equal(list.status, 200);
  return (list.body.faults as { id: number; fired: number; remaining: number | null }[]).find((r) => r.id === id);
}

describe('fault rules', () => {
  test('the next N matching requests fail in the v1.3 shape, marked, and the rule stops when used up', async () => {
    const rule = await addRule({
      match: { method: 'POST', path: '/v1.3/server/create' },
      action: { status: 503, retry_after: 7 },
      times: 2,
    });
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push(await nubis.request('POST', '/v1.3/server/create', { token: alice.token, body: standardServer }));
    for (const failed of answers.slice(0, 2)) {
      assert.equal(failed.status, 503);
      assert.equal(failed.headers.get('retry-after'), '7');
      assert.equal(failed.headers.get('nubis-fault'), String(rule.id));
      assert.equal(failed.body.errors.response, '503 Service Unavailable');
      assert.match(failed.body.errors.reason, new RegExp(`fault rule ${rule.id}`));
    }
    assert.equal(answers[2].status, 201, 'the third create is not matched any more');
    assert.equal(answers[2].headers.get('nubis-fault'), null);
    assert.deepEqual(
      { fired: (await ruleState(rule.id))?.fired, remaining: (await ruleState(rule.id))?.remaining },
      { fired: 2, remaining: 0 },
    );
  });

  test('a rule on the legacy API answers the legacy error envelope and leaves v1.3 alone', async () => {
    const rule = await addRule({ match: { api: 'v1', path: '/v1/server/list' }, action: { status: 500 }, times: 1 });
    const v13 = await nubis.request('GET', '/v1.3/server/list', { token: alice.token });
    assert.equal(v13.status, 200);
    const legacy = await nubis.request('GET', '/v1/server/list', { token: alice.token });
    assert.equal(legacy.status, 500);
    assert.equal(legacy.body.response_type, 'error');
    assert.equal(legacy.body.response_code, 500);
    assert.equal(legacy.headers.get('nubis-fault'), String(rule.id));
  });

  test('a rule naming an account fails only that account’s requests', async () => {
    // 403: a status account/info documents (a rule's 4xx fires only where the operation answers it).
    const rule = await addRule({ match: { account: bob.email }, action: { status: 403 }, times: 5 });
    const aliceInfo = await nubis.request('GET', '/v1.3/account/info', { token: alice.token });
    const bobInfo = await nubis.request('GET', '/v1.3/account/info', { token: bob.token });
    assert.equal(aliceInfo.status, 200);
    assert.equal(bobInfo.status, 403);
    assert.equal(bobInfo.body.errors.response, '403 Forbidden');
    await nubis.admin('DELETE', `/admin/faults/${rule.id}`);
  });

  test('a rule for one operation with a 4xx it never answers is refused, naming the status and what it documents', async () => {
    // ssh_key/rename never answers 403 (the specification); the rule could never fire.
    const rulesBefore = (await nubis.admin('GET', '/admin/faults')).body.faults.length;
    const refused = await nubis.admin('POST', '/admin/faults', {
      match: { operation: 'renameSshKey' },
      action: { status: 403 },
    });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    const text = JSON.stringify(refused.body);
    assert.match(text, /action\.status/);
    const documented = (((await nubis.request('GET', '/openapi.json')).body.paths as Record<string, unknown>)[
      '/v1.3/ssh_key/rename'
    ] ?? {}) as Record<string, { responses: Record<string, unknown> }>;
    const statuses = Object.values(documented).flatMap((operation) => Object.keys(operation.responses));
    assert.ok(statuses.includes('404'), "the document lists rename's statuses");
    for (const status of statuses) assert.match(text, new RegExp(`\\b${status}\\b`), `names ${status}`);
    assert.equal((await nubis.admin('GET', '/admin/faults')).body.faults.length, rulesBefore, 'nothing was added');
    // A documented 4xx, and any 5xx, are accepted on the same operation.
    for (const status of [404, 502]) {
      const rule = await addRule({ match: { operation: 'renameSshKey' }, action: { status } });
      await nubis.admin('DELETE', `/admin/faults/${rule.id}`);
    }
  });

  test('429 carries Retry-After and the RateLimit headers', async () => {
    await addRule({ match: { path: '/v1.3/ssh_key/list' }, action: { status: 429 }, times: 1 });
    const limited = await nubis.request('GET', '/v1.3/ssh_key/list', { token: alice.token });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '1');
    assert.equal(limited.headers.get('ratelimit-remaining'), '0');
    assert.ok(limited.headers.get('ratelimit-limit'));
  });

  test('a latency-only rule lets the request through, marked', async () => {
    const rule = await addRule({ match: { path: '/v1.3/region/list' }, action: { latency_ms: 50 }, times: 1 });
    const slow = await nubis.request('GET', '/v1.3/region/list');
    assert.equal(slow.status, 200);
    assert.ok(slow.body.regions);
    assert.equal(slow.headers.get('nubis-fault'), String(rule.id));
  });

  test('a rule with probability 0 never fires; a prefix matches every path under it', async () => {
    const never = await addRule({ match: { path: '/v1.3/*' }, action: { status: 500 }, probability: 0 });
    for (let i = 0; i < 5; i++)
      assert.equal((await nubis.request('GET', '/v1.3/account/info', { token: alice.token })).status, 200);
    assert.equal((await ruleState(never.id))?.fired, 0);
    await nubis.admin('DELETE', `/admin/faults/${never.id}`);
    const prefix = await addRule({ match: { path: '/v1.3/floating_ip/*' }, action: { status: 502 }, times: 1 });
    const conflict = await nubis.request('GET', '/v1.3/floating_ip/list', { token: alice.token });
    assert.equal(conflict.status, 502);
    assert.equal(conflict.headers.get('nubis-fault'), String(prefix.id));
  });

  test('rules are removed one by one or all at once; the operator API is never faulted', async () => {
    const everything = await addRule({ match: {}, action: { status: 500 } });
    assert.equal((await nubis.request('GET', '/v1.3/region/list')).status, 500);
    assert.equal((await nubis.admin('GET', '/admin/faults')).status, 200, 'the operator can still remove it');
    assert.equal((await nubis.admin('DELETE', `/admin/faults/${everything.id}`)).status, 204);
    assert.equal((await nubis.admin('DELETE', `/admin/faults/${everything.id}`)).status, 404);
    assert.equal((await nubis.request('GET', '/v1.3/region/list')).status, 200);
    await addRule({ match: {}, action: { status: 500 } });
    await addRule({ match: {}, action: { status: 503 } });
    assert.equal((await nubis.admin('DELETE', '/admin/faults')).status, 204);
    assert.deepEqual((await nubis.admin('GET', '/admin/faults')).body.faults, []);
    assert.equal((await nubis.request('GET', '/v1.3/region/list')).status, 200);
  });

  test('a rule that could never fire is refused with the field named', async () => {
    const empty = await nubis.admin('POST', '/admin/faults', { match: {}, action: {} });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.errors[0].field, 'action');
    const badStatus = await nubis.admin('POST', '/admin/faults', { match: {}, action: { status: 200 } });
    assert.equal(badStatus.status, 400);
    const unknownAccount = await nubis.admin('POST', '/admin/faults', {
      match: { account: 'nobody@example.com' },
      action: { status: 500 },
    });
    assert.equal(unknownAccount.status, 404);
  });

  test('a compute failure leaves the request answered and the server in the documented failure state', async () => {
    const rule = await addRule({
      match: { path: '/v1.3/server/create', account: alice.email },
      action: { compute_fail: true },
      times: 1,
    });
    const failed = await deployServer(nubis, alice.token, { label: 'will not boot' });
    const ok = await deployServer(nubis, alice.token, { label: 'boots' });
    assert.equal(
      (await serverInfo(nubis, alice.token, failed.id)).power,
      'stopped',
      'a failed provisioning settles stopped',
    );
    assert.equal((await serverInfo(nubis, alice.token, ok.id)).power, 'running');
    const settled = (await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`)).body.events.find(
      (event: { resource: { uuid: string }; data: { after?: string } }) =>
        event.resource.uuid === failed.uuid && event.data.after === 'provisioning',
    );
    assert.equal(settled.data.power, 'stopped');
    assert.match(settled.data.error, new RegExp(`fault rule ${rule.id}`));

    await addRule({ match: { path: '/v1.3/server/stop' }, action: { compute_fail: true }, times: 1 });
    const stop = await nubis.request('PATCH', '/v1.3/server/stop', { token: alice.token, body: { server_id: ok.id } });
    assert.equal(stop.status, 202);
    assert.ok(stop.headers.get('nubis-fault'));
    await nubis.advance(SETTLE_SECONDS);
    assert.equal((await serverInfo(nubis, alice.token, ok.id)).power, 'running', 'the failed stop left it running');
    const refused = await nubis.admin('POST', '/admin/faults', {
      match: {},
      action: { compute_fail: true, status: 500 },
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.errors[0].field, 'action.compute_fail');
  });
});
