// Black-box tests of the HTTP machinery every API shares: authentication failures, the spec's
// error shapes (401, 405 with Allow, 501, 400 for bodies Fastify refuses), request ids,
// health endpoints, and the OpenAPI document with its browsable reference.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ADMIN_TOKEN, startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, registerBody, type TestAccount } from '../../test/support/accounts.ts';

let nubis: TestInstance;
let account: TestAccount;
before(async () => {
  nubis = await startTestInstance();
  account = await createAccount(nubis);
});
after(async () => {
  await nubis.close();
});

const unauthorized = {
  errors: {
    response: '401 Unauthorized',
    reason: 'authentication required: send a valid token as Authorization: Bearer <token>',
  },
};

describe('authentication', () => {
  test("401 in the spec's shape without a token, with an unknown one, and with a malformed header", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: `Bearer ${'0'.repeat(64)}` },
      { authorization: 'Bearer' },
      { authorization: 'Basic dXNlcjpwYXNz dGhpcw==' },
      { authorization: `Bearer ${'a'.repeat(300)}` },
    ]) {
      const result = await nubis.request('GET', '/v1.3/account/info', { headers });
      assert.equal(result.status, 401, JSON.stringify(headers));
      assert.deepEqual(result.body, unauthorized);
    }
  });

  test('the listings, register and login need no token', async () => {
    assert.equal((await nubis.request('GET', '/v1.3/region/list')).status, 200);
    assert.equal((await nubis.request('GET', '/v1.3/image/list')).status, 200);
    assert.equal((await nubis.request('GET', '/v1.3/plan/list')).status, 200);
    assert.equal((await nubis.request('POST', '/v1.3/account/register', { body: registerBody() })).status, 201);
    assert.equal(
      (
        await nubis.request('POST', '/v1.3/account/login', {
          body: { email: account.email, password: account.password },
        })
      ).status,
      200,
    );
  });

  test('the token is accepted with or without the Bearer prefix, in any case', async () => {
    assert.equal(
      (await nubis.request('GET', '/v1.3/account/info', { headers: { authorization: `bearer ${account.token}` } }))
        .status,
      200,
    );
    assert.equal(
      (await nubis.request('GET', '/v1.3/account/info', { headers: { authorization: account.token } })).status,
      200,
    );
  });
});

describe('error shapes', () => {
  test('405 for a known path with a wrong method names the right one, with an Allow header', async () => {
    for (const [method, path, allowed, allow] of [
      ['DELETE', '/v1.3/account/info', 'GET', 'GET, HEAD'],
      ['POST', '/v1.3/account/token_list', 'GET', 'GET, HEAD'],
      ['GET', '/v1.3/account/register', 'POST', 'POST'],
      ['PUT', '/v1.3/account/token_remove/1', 'DELETE', 'DELETE'],
      ['OPTIONS', '/v1.3/region/list', 'GET', 'GET, HEAD'],
      ['GET', '/admin/reset', 'POST', 'POST'],
    ] as const) {
      const result = await nubis.request(method, path, { token: account.token });
      assert.equal(result.status, 405, `${method} ${path}`);
      assert.equal(result.headers.get('allow'), allow);
      assert.deepEqual(result.body, {
        errors: { response: '405 Method Not Allowed', reason: `wrong method ${method}: use ${allowed}` },
      });
    }
  });

  test('501 for a path under /v1.3 that is no function; 404 outside the APIs', async () => {
    const result = await nubis.request('GET', '/v1.3/no/such/function', { token: account.token });
    assert.equal(result.status, 501);
    assert.deepEqual(result.body, {
      errors: { response: '501 Not Implemented', reason: 'function does not exist: GET /v1.3/no/such/function' },
    });
    const outside = await nubis.request('GET', '/nothing-here');
    assert.equal(outside.status, 404);
    assert.equal(outside.body.errors.response, '404 Not Found');
  });

  test("malformed JSON, a wrong content type and an oversized body are 400s in the spec's shape", async () => {
    const cases: [string, Record<string, string>, string, string][] = [
      ['{"email": "a@example.com",', { 'content-type': 'application/json' }, 'malformed JSON body', 'malformed JSON'],
      [
        '{"__proto__": {"admin": true}}',
        { 'content-type': 'application/json' },
        'malformed JSON body',
        'prototype poisoning',
      ],
      [
        'email=a@example.com',
        { 'content-type': 'application/x-www-form-urlencoded' },
        'unsupported Content-Type: send application/json',
        'form body',
      ],
      ['hello', { 'content-type': 'text/plain' }, 'unsupported Content-Type: send application/json', 'text body'],
      [
        JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(300 * 1024) }),
        { 'content-type': 'application/json' },
        'request body too large',
        'oversized body',
      ],
    ];
    for (const [rawBody, headers, reason, label] of cases) {
      const result = await nubis.request('POST', '/v1.3/account/login', { rawBody, headers });
      assert.equal(result.status, 400, label);
      assert.deepEqual(result.body, { errors: [{ reason, field: 'body' }] }, label);
    }
  });

  test('a body of the wrong JSON type is a 400 naming the body', async () => {
    const result = await nubis.request('POST', '/v1.3/account/login', {
      rawBody: '[1, 2]',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(result.status, 400);
    assert.deepEqual(result.body, { errors: [{ reason: 'wrong data type: must be object', field: 'body' }] });
  });

  test("a URL that cannot be decoded is a 400 in the spec's shape", async () => {
    const result = await nubis.request('DELETE', '/v1.3/account/token_remove/%zz', { token: account.token });
    assert.equal(result.status, 400);
    assert.equal(result.body.errors[0].field, 'path');
  });

  test('a bad query value is a 400 naming the parameter', async () => {
    for (const query of ['region_id=abc', 'region_id=1e400', 'region_id=0', 'region_id=1&region_id=2']) {
      const result = await nubis.request('GET', `/v1.3/image/list?${query}`);
      assert.equal(result.status, 400, query);
      assert.equal(result.body.errors[0].field, 'region_id', query);
    }
  });
});

describe('request ids', () => {
  test('every answer carries x-request-id; a sane incoming one is kept', async () => {
    const generated = await nubis.request('GET', '/healthz');
    assert.match(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const kept = await nubis.request('GET', '/v1.3/account/info', { headers: { 'x-request-id': 'trace-42' } });
    assert.equal(kept.status, 401);
    assert.equal(kept.headers.get('x-request-id'), 'trace-42');
    const replaced = await nubis.request('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(replaced.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });
});

describe('health', () => {
  test('/healthz says the process is up; /readyz that storage answers', async () => {
    assert.deepEqual((await nubis.request('GET', '/healthz')).body, { status: 'ok' });
    const ready = await nubis.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready' });
  });
});

describe('OpenAPI', () => {
  test('/openapi.json is an OpenAPI 3.1 document of every served path, with complete responses', async () => {
    const result = await nubis.request('GET', '/openapi.json');
    assert.equal(result.status, 200);
    const doc = result.body;
    assert.equal(doc.openapi, '3.1.0');
    const paths = Object.keys(doc.paths);
    for (const path of [
      '/healthz',
      '/readyz',
      '/v1.3/account/token_list',
      '/v1.3/account/token_create',
      '/v1.3/account/token_rename',
      '/v1.3/account/token_remove/{token_id}',
      '/v1.3/account/info',
      '/v1.3/account/register',
      '/v1.3/account/login',
      '/v1.3/account/activate',
      '/v1.3/account/update',
      '/v1.3/account/reset',
      '/v1.3/region/list',
      '/v1.3/image/list',
      '/v1.3/plan/list',
      '/admin/accounts',
      '/admin/accounts/{account}',
      '/admin/accounts/{account}/credit',
      '/admin/outbox',
      '/admin/clock',
      '/admin/clock/advance',
      '/admin/reset',
    ])
      assert.ok(paths.includes(path), `${path} is documented`);

    for (const [path, operations] of Object.entries(
      doc.paths as Record<
        string,
        Record<string, { tags?: string[]; security?: unknown[]; responses: Record<string, { content?: unknown }> }>
      >,
    )) {
      for (const [method, operation] of Object.entries(operations)) {
        const success = Object.keys(operation.responses).filter((status) => status.startsWith('2'));
        assert.ok(success.length > 0, `${method} ${path} documents its success`);
        for (const status of success)
          if (status !== '204')
            assert.ok(operation.responses[status]!.content, `${method} ${path} ${status} has a schema`);
        if (path.startsWith('/admin/')) {
          assert.deepEqual(operation.tags, ['operator'], `${method} ${path} is tagged operator`);
          assert.deepEqual(operation.security, [{ operator: [] }]);
        }
        // Every documented v1.3 operation is served: none of them answers 501.
        if (path.startsWith('/v1.3/')) {
          const served = await nubis.request(method.toUpperCase(), path.replace('{token_id}', '1'));
          assert.notEqual(served.status, 501, `${method} ${path} is served`);
        }
      }
    }
    assert.ok(doc.tags.some((tag: { name: string }) => tag.name === 'operator'));
    assert.match(doc.paths['/v1.3/plan/list'].get.description, /extension/i);
    // Public operations say so; the rest need the bearer token.
    assert.deepEqual(doc.paths['/v1.3/region/list'].get.security, []);
    assert.deepEqual(doc.security, [{ bearer: [] }]);
  });

  test('the account schema of the operator API is the real one', async () => {
    const doc = (await nubis.request('GET', '/openapi.json')).body;
    const schema = doc.paths['/admin/accounts'].get.responses['200'].content['application/json'].schema;
    // Shared shapes are named components: `{ $ref: '#/components/schemas/AdminAccount' }`.
    const ref: string = schema.properties.accounts.items.$ref;
    assert.equal(ref, '#/components/schemas/AdminAccount');
    const item = doc.components.schemas.AdminAccount;
    for (const field of [
      'id',
      'uuid',
      'email',
      'profile',
      'balance',
      'activated',
      'servers',
      'billing',
      'permissions',
      'blocked_ports',
      'activity',
      'blocked',
    ]) {
      assert.ok(item.properties[field], `operator account schema has ${field}`);
    }
  });

  test('/docs serves the browsable reference', async () => {
    const result = await nubis.request('GET', '/docs');
    assert.equal(result.status, 200);
    assert.match(String(result.body), /swagger-ui/i);
  });
});

describe('operator API authentication', () => {
  test('401 with a wrong admin token or an account token', async () => {
    for (const token of ['wrong-admin-token-000000', account.token]) {
      const result = await nubis.request('GET', '/admin/clock', { token });
      assert.equal(result.status, 401);
      assert.equal(result.body.errors.response, '401 Unauthorized');
    }
    assert.equal((await nubis.request('GET', '/admin/clock', { token: ADMIN_TOKEN })).status, 200);
  });
});
