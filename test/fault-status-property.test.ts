// Generated from /openapi.json (issue 34): for a random customer operation and a random status a
// rule may answer, adding a rule for exactly that operation either is refused with 400 naming
// `action.status` (a 4xx the operation does not document: it could never fire), or is accepted
// and then answers the operation's next request with exactly that status, marked Nubis-Fault.
// The rule pins the operation in one of three forms: its id, its method and route
// (`/v1.3/server/:server_id`), or its method and a request's exact path (`/v1.3/server/1`).
// PROPERTY_RUNS (default 100) sets the cases; PROPERTY_SEED replays a run.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { injectableStatuses } from '../src/faults/fault.service.ts';
import { createAccount, type TestAccount } from './support/accounts.ts';
import { startTestInstance, type TestInstance } from './support/instance.ts';
import { type Json, type Operation, operations } from './support/openapi.ts';

const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);
const SEED = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : undefined;

/** A request the route matches: a rule fires after authentication and before validation. */
function urlOf(op: Operation): string {
  return op.path.replace(/\{[^}]+\}/g, '1');
}

describe('a fault rule for one exact operation', () => {
  let nubis: TestInstance;
  let customerOps: Operation[];
  let account: TestAccount;

  before(async () => {
    nubis = await startTestInstance();
    const doc: Json = (await nubis.request('GET', '/openapi.json')).body;
    // The operator API is never faulted: the customer APIs only.
    customerOps = operations(doc).filter((op) => /^\/v1(\.3)?\//.test(op.path));
    account = await createAccount(nubis);
  });
  after(() => nubis.close());

  it('is refused for an undocumented 4xx, else fires with exactly its status', async () => {
    assert.ok(customerOps.length > 50, `the document lists the customer operations (${customerOps.length})`);
    // By operation id: a counterexample reads as the rule's own words.
    const byId = new Map(customerOps.map((op) => [op.id, op]));
    assert.equal(byId.size, customerOps.length, 'one operation per id');
    const cases = fc.record({
      operation: fc.constantFrom(...byId.keys()),
      status: fc.constantFrom(...injectableStatuses),
      form: fc.constantFrom('operation', 'route', 'path'),
    });
    await fc.assert(
      fc.asyncProperty(cases, async ({ operation, status, form }) => {
        const op = byId.get(operation) as Operation;
        const match =
          form === 'operation'
            ? { operation: op.id }
            : { method: op.method, path: form === 'route' ? op.path.replace(/\{([^}]+)\}/g, ':$1') : urlOf(op) };
        const added = await nubis.admin('POST', '/admin/faults', { match, action: { status }, times: 1 });
        const where = `${status} on ${op.method} ${op.path} (${op.id}, by ${form}; documents ${[...op.responses.keys()].join(', ')})`;
        if (status < 500 && !op.responses.has(status)) {
          assert.equal(added.status, 400, `${where}: ${JSON.stringify(added.body)}`);
          const text = JSON.stringify(added.body);
          assert.match(text, /action\.status/, where);
          for (const documented of op.responses.keys())
            assert.match(text, new RegExp(`\\b${documented}\\b`), `${where}: names ${documented}`);
          return;
        }
        assert.equal(added.status, 201, `${where}: ${JSON.stringify(added.body)}`);
        const rule = added.body.id as number;
        try {
          const answer = await nubis.request(op.method, urlOf(op), { token: account.token });
          assert.equal(answer.status, status, `${where}: ${JSON.stringify(answer.body)}`);
          assert.equal(answer.headers.get('nubis-fault'), String(rule), where);
        } finally {
          await nubis.admin('DELETE', `/admin/faults/${rule}`);
        }
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }) },
    );
  });
});
