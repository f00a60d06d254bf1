// Class 4 of issue 21: a JSON body's nesting is bounded before the body is parsed
// (MAX_JSON_DEPTH): a deeper one is a 400 naming `body`, on every API and with or without a token,
// never a 500. Brackets inside strings are text, not nesting; a body at the limit is read.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startTestInstance, type TestInstance } from '../support/instance.ts';
import { createAccount, registerBody, type TestAccount } from '../support/accounts.ts';

const LIMIT = 32;
let nubis: TestInstance;
let account: TestAccount;
before(async () => {
  nubis = await startTestInstance({}, { captureLog: true });
  account = await createAccount(nubis);
});
after(async () => {
  await nubis.close();
});

async function post(path: string, body: string, token?: string) {
  const response = await fetch(nubis.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) };
}

const nested = (depth: number, open: string, close: string, inner = '1') =>
  open.repeat(depth) + inner + close.repeat(depth);
/** `{"a":{"a":…}}`, `depth` objects deep. */
const objects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

test('a body nested deeper than the limit is a 400 naming the body, on every API', async () => {
  const targets: [string, string | undefined][] = [
    ['/v1.3/account/register', undefined],
    ['/v1.3/account/login', undefined],
    ['/v1.3/server/create', account.token],
    ['/v1/server/create', account.token],
    ['/admin/clock/advance', ADMIN_TOKEN],
  ];
  for (const [path, token] of targets)
    for (const body of [
      nested(10_000, '[', ']'),
      objects(10_000),
      nested(LIMIT + 1, '[', ']'),
      `{"email":${nested(200, '[', ']')}}`,
    ]) {
      const answer = await post(path, body, token);
      assert.equal(answer.status, 400, `${path} ${body.slice(0, 40)}…: ${answer.text}`);
      const fields =
        answer.body.errors?.map?.((e: { field: string }) => e.field) ??
        answer.body.fields?.map?.((e: { field: string }) => e.field);
      assert.deepEqual(fields, ['body'], `${path}: ${answer.text}`);
      assert.match(answer.text, /nested/);
    }
  assert.deepEqual(nubis.errorLog(), []);
});

test('brackets in strings are text, and a body at the limit is read', async () => {
  const deepText = registerBody({ firstname: '['.repeat(5_000).slice(0, 40), lastname: '{'.repeat(40) });
  const registered = await post('/v1.3/account/register', JSON.stringify(deepText));
  assert.ok(registered.status < 300, registered.text);
  // At the limit: parsed, then refused by the schema for what it is (a wrong type), not its depth.
  const atLimit = await post(
    '/v1.3/account/register',
    JSON.stringify({ ...registerBody(), firstname: JSON.parse(nested(LIMIT - 1, '[', ']')) }),
  );
  assert.equal(atLimit.status, 400, atLimit.text);
  assert.doesNotMatch(atLimit.text, /nested/);
  assert.equal(atLimit.body.errors[0].field, 'firstname');
  // Escaped quotes do not end a string early.
  const escaped = await post(
    '/v1.3/account/register',
    JSON.stringify(registerBody({ firstname: `\\"${'['.repeat(40)}` })),
  );
  assert.ok(escaped.status < 300, escaped.text);
  assert.deepEqual(nubis.errorLog(), []);
});
