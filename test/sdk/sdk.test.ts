// The SDK against a real Nubis: an account registers, activates and deploys a server, which
// the virtual clock moves from create to remove, all through @nubis/sdk; typed errors and
// invoice paging are checked on real answers.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  createNubisClient,
  invoiceItems,
  NubisError,
  unwrap,
  WaitTimeoutError,
  waitForServer,
  type NubisClient,
} from '@nubis/sdk';
import { ADMIN_TOKEN, startTestInstance, type TestInstance } from '../support/instance.ts';
import { uniqueEmail } from '../support/accounts.ts';

let nubis: TestInstance;
let operator: NubisClient;
before(async () => {
  nubis = await startTestInstance();
  operator = createNubisClient({ baseUrl: nubis.url, token: ADMIN_TOKEN });
});
after(() => nubis.close());

/** Registers through the SDK (a public operation: no token), activates from the outbox, credits. */
async function newCustomer(credit = 100): Promise<NubisClient> {
  const anonymous = createNubisClient({ baseUrl: nubis.url });
  const email = uniqueEmail('sdk');
  const registered = await unwrap(
    anonymous.POST('/v1.3/account/register', {
      body: {
        email,
        password: 'correct horse battery',
        firstname: 'Ada',
        lastname: 'Lovelace',
        country: 'NL',
        accept_tos: true,
      },
    }),
  );
  const { messages } = await unwrap(operator.GET('/admin/outbox', { params: { query: { to: email } } }));
  const uuid = /Activation uuid: ([0-9a-f-]{36})/.exec(messages[0]?.text ?? '')?.[1];
  assert.ok(uuid, 'activation mail');
  await unwrap(anonymous.PUT('/v1.3/account/activate', { body: { uuid } }));
  // A token given as a function is asked before every request (a console that logs in later).
  const client = createNubisClient({ baseUrl: nubis.url, token: () => registered.token });
  const account = await unwrap(client.GET('/v1.3/account/info'));
  await unwrap(
    operator.POST('/admin/accounts/{account}/credit', {
      params: { path: { account: String(account.id) } },
      body: { amount: credit, note: 'sdk test' },
    }),
  );
  return client;
}

async function advance(seconds: number): Promise<void> {
  await unwrap(operator.POST('/admin/clock/advance', { body: { seconds } }));
}

test('a server goes from create to remove through the SDK', async () => {
  const client = await newCustomer();
  const created = await unwrap(
    client.POST('/v1.3/server/create', {
      body: { hostname: 'sdk-1.example.com', label: 'sdk 1', region: 101, image: 1001, plan: 1 },
    }),
  );
  assert.equal(created.power, 'provisioning');
  assert.equal(created.name, 'sdk 1');

  await advance(600);
  const running = await waitForServer(client, created.id, 'running', { intervalMs: 10 });
  assert.equal(running?.power, 'running');
  assert.ok(running?.iface?.v4.length, 'a running server has its public addresses');

  // A wait that runs out names the state it last saw.
  const timedOut = await waitForServer(client, created.id, 'stopped', { timeoutMs: 0, intervalMs: 1 }).catch(
    (error: unknown) => error,
  );
  assert.ok(timedOut instanceof WaitTimeoutError);
  assert.equal(timedOut.last?.power, 'running');

  const listed = await unwrap(client.GET('/v1.3/server/list'));
  assert.deepEqual(
    listed.servers.map((s) => s.uuid),
    [created.uuid],
  );

  await unwrap(client.PATCH('/v1.3/server/stop', { body: { server_id: created.uuid } }));
  await advance(600);
  assert.equal((await waitForServer(client, created.uuid, 'stopped', { intervalMs: 10 }))?.power, 'stopped');

  await unwrap(client.PATCH('/v1.3/server/start', { body: { server_id: created.id } }));
  await advance(600);
  assert.equal((await waitForServer(client, created.id, ['running'], { intervalMs: 10 }))?.power, 'running');

  const removed = await client.DELETE('/v1.3/server/remove/{server_id}', {
    params: { path: { server_id: String(created.id) } },
  });
  assert.equal(removed.response.status, 204);
  assert.equal(await waitForServer(client, created.id, 'removed', { intervalMs: 10 }), null);
});

test('refusals are typed errors carrying the status, the status line and the fields', async () => {
  const client = await newCustomer();
  const missing = await unwrap(
    client.GET('/v1.3/server/info/{server_id}', { params: { path: { server_id: '999999' } } }),
  ).catch((error: unknown) => error);
  assert.ok(missing instanceof NubisError);
  assert.equal(missing.status, 404);
  assert.equal(missing.response, '404 Not Found');
  assert.ok(missing.reason.length > 0);

  const invalid = await unwrap(
    client.POST('/v1.3/server/create', {
      body: { hostname: 'x.example.com', label: '', region: 101, image: 1001, plan: 1 },
    }),
  ).catch((error: unknown) => error);
  assert.ok(invalid instanceof NubisError);
  assert.equal(invalid.status, 400);
  assert.ok(
    invalid.fields.some((f) => f.field.includes('label')),
    JSON.stringify(invalid.body),
  );

  const anonymous = createNubisClient({ baseUrl: nubis.url });
  const unauthorised = await unwrap(anonymous.GET('/v1.3/server/list')).catch((error: unknown) => error);
  assert.ok(unauthorised instanceof NubisError);
  assert.equal(unauthorised.status, 401);
  assert.equal(unauthorised.response, '401 Unauthorized');

  // The legacy envelope: the reason is its message, the fields of a 400 are named.
  const legacy = await unwrap(client.POST('/v1/server/stop', { body: {} as never })).catch((error: unknown) => error);
  assert.ok(legacy instanceof NubisError);
  assert.equal(legacy.status, 400);
  assert.ok(
    legacy.fields.some((f) => f.field === 'SUBID'),
    JSON.stringify(legacy.body),
  );
  assert.match(legacy.reason, /SUBID/);
});

test('invoiceItems walks every page of invoice items', async () => {
  const client = await newCustomer(1000);
  // Each server with backups and DDoS protection opens several items: enough for more than one page.
  for (let i = 0; i < 9; i++) {
    await unwrap(
      client.POST('/v1.3/server/create', {
        body: {
          hostname: `page-${i}.example.com`,
          label: `page ${i}`,
          region: 101,
          image: 1001,
          plan: 1,
          auto_backups: true,
          ddos_protection: true,
        },
      }),
    );
  }
  const first = await unwrap(client.GET('/v1.3/invoice/list'));
  assert.ok(first.meta.total > first.invoices.length, `more than one page (${first.meta.total} items)`);
  const all = [];
  for await (const item of invoiceItems(client)) all.push(item);
  assert.equal(all.length, first.meta.total);
  assert.deepEqual(all.slice(0, first.invoices.length), first.invoices);
});
