// Issue 34: every 5xx that is a fault logs one error line with the request id and the cause's
// stack, and its body stays `internal error` — in an API scope, on the payment processors' pages
// and on the root routes. The failure is planted in a dependency of the running instance (a
// repository method, the OpenAPI document), never through a route that would ship.

import assert from 'node:assert/strict';
import { after, before, describe, mock, test } from 'node:test';
import { paymentRepository } from '../payments/payment.repository.ts';
import { sshKeyRepository } from '../ssh-keys/ssh-key.repository.ts';
import { createAccount } from '../../test/support/accounts.ts';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';

const planted = 'planted failure 7f3a';

let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance({ PAYMENT_PROCESSOR: 'simulated' }, { captureLog: true });
});
after(() => nubis.close());

/** Asserts the one error line a failed request left: its request id and the planted cause's stack. */
function assertOneErrorLine(before: number, requestId: string | null) {
  const lines = nubis.errorLog().slice(before);
  assert.equal(lines.length, 1, JSON.stringify(lines));
  const [line] = lines as [{ reqId?: string; err?: { stack?: string; message?: string } }];
  assert.ok(requestId, 'the answer carries its request id');
  assert.equal(line.reqId, requestId);
  assert.equal(line.err?.message, planted);
  assert.match(line.err?.stack ?? '', /failure-log\.test\.ts/, 'the stack points at where it was thrown');
}

describe('a failure behind a 5xx', () => {
  test('in the API: one error line, the body says only internal error', async (t) => {
    const account = await createAccount(nubis);
    t.mock.method(sshKeyRepository, 'listByAccount', () => {
      throw new Error(planted);
    });
    const seen = nubis.errorLog().length;
    const answer = await nubis.request('GET', '/v1.3/ssh_key/list', { token: account.token });
    assert.equal(answer.status, 500);
    assert.doesNotMatch(JSON.stringify(answer.body), /planted/);
    assert.match(JSON.stringify(answer.body), /internal error/);
    assertOneErrorLine(seen, answer.headers.get('x-request-id'));
  });

  test("on a payment processor's page: one error line, the body says only internal error", async (t) => {
    t.mock.method(paymentRepository, 'simulatedCheckout', () => Promise.reject(new Error(planted)));
    const seen = nubis.errorLog().length;
    const answer = await nubis.request('GET', '/simulated-processor/checkout/sim_0');
    assert.equal(answer.status, 500);
    assert.deepEqual(answer.body, { error: 'internal error' });
    assertOneErrorLine(seen, answer.headers.get('x-request-id'));
  });

  test('on a root route: one error line, and the cause never reaches the client', async () => {
    const openapi = (nubis.running.app as unknown as { openapi: { json(): unknown } }).openapi;
    const json = mock.method(openapi, 'json', () => {
      throw new Error(planted);
    });
    try {
      const seen = nubis.errorLog().length;
      const answer = await nubis.request('GET', '/openapi.json');
      assert.equal(answer.status, 500);
      assert.doesNotMatch(JSON.stringify(answer.body), /planted/);
      assert.match(JSON.stringify(answer.body), /internal error/);
      assertOneErrorLine(seen, answer.headers.get('x-request-id'));
    } finally {
      json.mock.restore();
    }
  });
});
