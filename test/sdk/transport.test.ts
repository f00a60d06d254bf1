// The SDK over a transport of the caller's own (sdk/src/transport.ts, what the `nubis` command
// uses to spare fetch's load): the same calls answer the same data and errors as the fetch path,
// with the URL, query, body and headers built as openapi-fetch builds them.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createNubisClient, NubisError, type Transport, type TransportRequest, unwrap } from '@nubis/sdk';
import { createAccount, type TestAccount } from '../support/accounts.ts';
import { startTestInstance, type TestInstance } from '../support/instance.ts';
import { ecdsaPublicKey } from '../support/servers.ts';

let nubis: TestInstance;
let account: TestAccount;
before(async () => {
  nubis = await startTestInstance();
  account = await createAccount(nubis);
});
after(() => nubis.close());

/** A transport over fetch that records what it was handed. */
function recording(): { transport: Transport; sent: TransportRequest[] } {
  const sent: TransportRequest[] = [];
  const transport: Transport = async (request) => {
    sent.push(request);
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.signal,
    });
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: new Uint8Array(await response.arrayBuffer()),
    };
  };
  return { transport, sent };
}

test('calls through a transport answer what the fetch path answers', async () => {
  const { transport, sent } = recording();
  const viaTransport = createNubisClient({ baseUrl: `${nubis.url}/`, token: account.token, transport });
  const viaFetch = createNubisClient({ baseUrl: nubis.url, token: account.token });

  assert.deepEqual(
    await unwrap(viaTransport.GET('/v1.3/account/info')),
    await unwrap(viaFetch.GET('/v1.3/account/info')),
  );
  assert.deepEqual(sent[0], {
    method: 'GET',
    url: `${nubis.url}/v1.3/account/info`,
    headers: { authorization: `Bearer ${account.token}` },
    body: undefined,
    signal: undefined,
  });

  // A body, a path parameter and a query, serialized as openapi-fetch does.
  const key = await unwrap(
    viaTransport.POST('/v1.3/ssh_key/create', {
      body: { name: 'laptop', public_key: ecdsaPublicKey() },
    }),
  );
  assert.equal(sent[1]?.headers['content-type'], 'application/json');
  assert.equal(JSON.parse(sent[1]?.body ?? '').name, 'laptop');
  const listed = await unwrap(viaTransport.GET('/v1.3/ssh_key/list'));
  assert.deepEqual(listed, await unwrap(viaFetch.GET('/v1.3/ssh_key/list')));
  assert.ok(listed.ssh_keys.some((entry) => entry.uuid === key.uuid));
  await unwrap(viaTransport.GET('/v1.3/invoice/list', { params: { query: { start_id: 0 } } }));
  assert.equal(sent.at(-1)?.url, `${nubis.url}/v1.3/invoice/list?start_id=0`);
  // A call's own headers, as a record, a Headers object or pairs.
  await unwrap(viaTransport.GET('/v1.3/account/info', { headers: new Headers({ 'X-Request-Id': 'from-headers' }) }));
  assert.equal(sent.at(-1)?.headers['x-request-id'], 'from-headers');
  await unwrap(viaTransport.GET('/v1.3/account/info', { headers: [['X-Request-Id', 'from-pairs']] }));
  assert.equal(sent.at(-1)?.headers['x-request-id'], 'from-pairs');
  // A 204: no data, and the response's status.
  const removed = await viaTransport.DELETE('/v1.3/ssh_key/remove/{ssh_key_id}', {
    params: { path: { ssh_key_id: key.uuid } },
  });
  assert.equal(removed.response.status, 204);
  assert.equal(removed.data, undefined);
});

test('refusals through a transport are the same typed errors; middleware is refused by name', async () => {
  const { transport } = recording();
  const client = createNubisClient({ baseUrl: nubis.url, token: account.token, transport });
  const missing = await unwrap(
    client.GET('/v1.3/server/info/{server_id}', { params: { path: { server_id: '999999' } } }),
  ).catch((error: unknown) => error);
  assert.ok(missing instanceof NubisError);
  assert.equal(missing.status, 404);
  assert.equal(missing.response, '404 Not Found');
  const anonymous = createNubisClient({ baseUrl: nubis.url, transport });
  const refused = await anonymous.GET('/v1.3/server/list');
  assert.equal(refused.response.status, 401);
  assert.equal(refused.response.headers.get('Content-Type')?.startsWith('application/json'), true);
  assert.throws(() => client.use({ onRequest: ({ request }) => request }), /middleware needs the fetch path/);
});
