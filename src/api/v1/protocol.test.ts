// Black-box tests of the legacy protocol itself: form bodies, the error envelope for unknown
// paths, wrong methods and bodies, and the OpenAPI document of /v1 (form bodies declared).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type JsonBody, type TestInstance } from '../../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../../test/support/accounts.ts';
import { assertError } from '../../../test/support/legacy-assertions.ts';

let nubis: TestInstance;
let alice: TestAccount;

before(async () => {
  nubis = await startTestInstance();
  alice = await createAccount(nubis);
});
after(async () => {
  await nubis.close();
});

/** Every operation of the spec's endpoint table. */
const operations: [string, string][] = [
  ['GET', '/v1/account/info'],
  ['GET', '/v1/account/createkey'],
  ['GET', '/v1/locations/list'],
  ['GET', '/v1/templates/list/{DCID}'],
  ['GET', '/v1/plans/list/{DCID}'],
  ['GET', '/v1/reservedip/list'],
  ['POST', '/v1/reservedip/create'],
  ['POST', '/v1/reservedip/remove'],
  ['POST', '/v1/reservedip/attach'],
  ['POST', '/v1/reservedip/detach'],
  ['GET', '/v1/server/list'],
  ['POST', '/v1/server/create'],
  ['POST', '/v1/server/remove'],
  ['POST', '/v1/server/reboot'],
  ['POST', '/v1/server/stop'],
  ['GET', '/v1/snapshot/list'],
  ['POST', '/v1/snapshot/create'],
  ['POST', '/v1/snapshot/remove'],
  ['POST', '/v1/snapshot/restore'],
  ['POST', '/v1/backup/restore'],
];

describe('the error envelope', () => {
  test('an unknown path is a 404, a known path with the wrong method a 405 naming the right one', async () => {
    assertError(await nubis.request('GET', '/v1/server/info', { token: alice.token }), 404);
    assertError(await nubis.request('POST', '/v1/nothing/here', { token: alice.token, form: { a: 1 } }), 404);
    const wrong = await nubis.request('GET', '/v1/server/create', { token: alice.token });
    assertError(wrong, 405);
    assert.match(wrong.body.message, /POST/);
    assert.match(wrong.headers.get('allow') ?? '', /POST/);
    assertError(await nubis.request('POST', '/v1/server/list', { token: alice.token, form: {} }), 405);
  });

  test('a body that is not a form (or JSON) is a 400 naming the body; a JSON body is accepted too', async () => {
    const text = await nubis.request('POST', '/v1/reservedip/create', {
      token: alice.token,
      rawBody: 'DCID=101',
      headers: { 'content-type': 'text/plain' },
    });
    assertError(text, 400);
    assert.deepEqual(
      text.body.fields.map((f: { field: string }) => f.field),
      ['body'],
    );
    const json = await nubis.request('POST', '/v1/reservedip/create', { token: alice.token, body: { DCID: 101 } });
    assert.equal(json.status, 200, JSON.stringify(json.body));
    assert.equal(json.body.response_code, 202);
  });

  test('a field sent twice is a 400 naming it, not a 500', async () => {
    const twice = await nubis.request('POST', '/v1/server/stop', {
      token: alice.token,
      rawBody: 'SUBID=1&SUBID=2',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assertError(twice, 400);
    assert.deepEqual(
      twice.body.fields.map((f: { field: string }) => f.field),
      ['SUBID'],
    );
  });

  test('every authenticated operation answers 401 in the envelope without a key; the listings do not ask for one', async () => {
    for (const [method, path] of operations) {
      const result = await nubis.request(method, path.replace('{DCID}', '101'), method === 'POST' ? { form: {} } : {});
      if (/locations|templates|plans/.test(path)) assert.equal(result.status, 200, path);
      else assertError(result, 401);
    }
  });
});

describe('OpenAPI', () => {
  test('documents every legacy operation, tagged, with form bodies and the envelopes', async () => {
    const doc = (await nubis.request('GET', '/openapi.json')).body;
    // Named shapes are references to components.schemas.
    const resolved = (schema: JsonBody) =>
      schema.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
    for (const [method, path] of operations) {
      const operation = doc.paths[path]?.[method.toLowerCase()];
      assert.ok(operation, `${method} ${path} is documented`);
      assert.deepEqual(operation.tags, ['v1 legacy'], `${method} ${path} is tagged`);
      assert.ok(
        operation.responses['200']?.content?.['application/json']?.schema,
        `${method} ${path} documents its 200`,
      );
      if (method === 'POST') {
        assert.deepEqual(
          Object.keys(operation.requestBody.content),
          ['application/x-www-form-urlencoded'],
          `${method} ${path} takes a form`,
        );
        assert.deepEqual(
          resolved(operation.responses['200'].content['application/json'].schema).properties.response_type.enum,
          ['success'],
        );
        assert.deepEqual(
          resolved(operation.responses['400'].content['application/json'].schema).properties.response_type.enum,
          ['error'],
        );
      }
      if (/locations|templates|plans/.test(path)) assert.deepEqual(operation.security, [], `${path} is public`);
      else assert.equal(operation.security, undefined, `${path} needs the key (the document's default)`);
    }
    const create = doc.paths['/v1/server/create'].post.requestBody.content['application/x-www-form-urlencoded'].schema;
    assert.deepEqual(create.required.sort(), ['DCID', 'OSID', 'PLAN', 'hostname']);
    for (const field of ['label', 'ipv6_networking', 'private_networking', 'ddos_protection', 'cloud_init_script'])
      assert.ok(create.properties[field], field);
  });
});
