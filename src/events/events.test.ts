// Events and webhooks (issue 16): every change of a server's life is a numbered event, in the
// order it happened (a transition's end stamped with the time it ended, a superseded one
// dropped); the feed pages and streams; webhooks receive each event of the account, in order,
// signed, and again after the receiver was down.

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { orderServer } from '../../test/support/servers.ts';

let nubis: TestInstance;

before(async () => {
  nubis = await startTestInstance();
});
after(() => nubis.close());

interface Event {
  id: number;
  type: string;
  occurred: string;
  account: number;
  resource: { type: string; uuid: string };
  data: Record<string, unknown>;
}

async function events(query = ''): Promise<Event[]> {
  const answer = await nubis.admin('GET', `/admin/events${query}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.events;
}

/** A server's life as its events tell it: type and the state it names. */
async function lifeOf(uuid: string, account: number): Promise<string[]> {
  return (await events(`?account=${account}&limit=1000`))
    .filter((event) => event.resource.uuid === uuid && event.type.startsWith('server.'))
    .map((event) => [event.type, event.data.transition ?? event.data.power ?? ''].filter(Boolean).join(' '));
}

describe('events', () => {
  test("a server's life is told in order, each transition's end at the time it ended", async () => {
    const alice = await createAccount(nubis);
    const created = await orderServer(nubis, alice.token, {});
    const createdAt = Date.parse((await events(`?account=${alice.id}`)).at(-1)!.occurred);
    await nubis.advance(600);
    assert.equal(
      (await nubis.request('PATCH', '/v1.3/server/stop', { token: alice.token, body: { server_id: created.id } }))
        .status,
      202,
    );
    await nubis.advance(600);
    assert.equal(
      (await nubis.request('DELETE', `/v1.3/server/remove/${created.id}`, { token: alice.token })).status,
      204,
    );
    assert.deepEqual(await lifeOf(created.uuid, alice.id), [
      'server.created',
      'server.power running',
      'server.transition stopping',
      'server.power stopped',
      'server.removed',
    ]);
    const provisioned = (await events(`?account=${alice.id}`)).find(
      (event) => event.resource.uuid === created.uuid && event.data.after === 'provisioning',
    );
    const provisioningSeconds = (Date.parse(provisioned!.occurred) - createdAt) / 1000;
    assert.ok(provisioningSeconds >= 59 && provisioningSeconds <= 61, `provisioned after ${provisioningSeconds} s`);
    const billing = (await events(`?account=${alice.id}`)).filter((event) => event.resource.uuid === created.uuid);
    assert.ok(billing.some((event) => event.type === 'invoice_item.opened'));
    assert.ok(billing.some((event) => event.type === 'invoice_item.closed'));
  });

  test('an action that supersedes a transition drops the end it would have had', async () => {
    const bob = await createAccount(nubis);
    const created = await orderServer(nubis, bob.token, {});
    const rebuilt = await nubis.request('POST', '/v1.3/server/rebuild', {
      token: bob.token,
      body: { server_id: created.id, image_id: 1001 },
    });
    assert.ok(rebuilt.status >= 200 && rebuilt.status < 300, JSON.stringify(rebuilt.body));
    await nubis.advance(600);
    assert.deepEqual(await lifeOf(created.uuid, bob.id), [
      'server.created',
      'server.transition rebuilding',
      'server.power running',
    ]);
  });

  test('the feed pages after a sequence number and filters by account', async () => {
    const carol = await createAccount(nubis);
    await orderServer(nubis, carol.token, {});
    const all = await events(`?account=${carol.id}&limit=1000`);
    assert.ok(all.length >= 2);
    assert.ok(all.every((event) => event.account === carol.id));
    for (let i = 1; i < all.length; i++) assert.ok(all[i].id > all[i - 1].id, 'numbered in order');
    const rest = await events(`?account=${carol.id}&after=${all[0].id}`);
    assert.deepEqual(rest, all.slice(1));
    assert.deepEqual(await events(`?account=${carol.id}&after=${all[0].id}&limit=1`), [all[1]]);
  });

  test('the stream sends each event with its id and type, and resumes after Last-Event-ID', async () => {
    const dave = await createAccount(nubis);
    const before = await events(`?account=${dave.id}&limit=1000`);
    const last = before.at(-1)?.id ?? 0;
    const controller = new AbortController();
    const response = await fetch(`${nubis.url}/admin/events/stream?account=${dave.id}`, {
      headers: { authorization: `Bearer ${'test-admin-token-0123456789'}`, 'last-event-id': String(last) },
      signal: controller.signal,
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /text\/event-stream/);
    // The document says what is served: the SDK and clients read the media type from it.
    const documented = (await nubis.request('GET', '/openapi.json')).body.paths['/admin/events/stream'].get;
    assert.deepEqual(Object.keys(documented.responses['200'].content), ['text/event-stream']);
    const created = await orderServer(nubis, dave.token, {});
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes(created.uuid)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    const first = /id: (\d+)\nevent: ([\w.]+)\ndata: (.*)\n\n/.exec(text);
    assert.ok(first, text);
    assert.ok(Number(first[1]) > last, 'nothing at or before Last-Event-ID is sent again');
    assert.equal(first[2], 'server.created');
    assert.equal(JSON.parse(first[3]).resource.uuid, created.uuid);
  });
});

describe('webhooks', () => {
  let receiver: Server;
  let received: { body: string; headers: IncomingMessage['headers'] }[];
  let down = false;
  let receiverUrl: string;

  before(async () => {
    received = [];
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        if (down) {
          response.writeHead(503).end();
          return;
        }
        received.push({ body, headers: request.headers });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address() as { port: number };
    receiverUrl = `http://127.0.0.1:${address.port}/hooks`;
  });
  after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  // Polls for at most 60 s: a bound against a broken build, long enough for a loaded machine.
  async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 1200; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`never happened: ${what}`);
  }

  test("each of the account's events arrives in order, signed, also after the receiver was down", async () => {
    const erin: TestAccount = await createAccount(nubis);
    const secret = 'a-webhook-secret-0123456789';
    const added = await nubis.admin('POST', `/admin/accounts/${erin.id}/webhooks`, { url: receiverUrl, secret });
    assert.equal(added.status, 201, JSON.stringify(added.body));

    const created = await orderServer(nubis, erin.token, {});
    await until(() => received.some((r) => r.body.includes('server.created')), 'server.created delivered');

    down = true;
    await nubis.advance(600);
    const stopped = await nubis.request('PATCH', '/v1.3/server/stop', {
      token: erin.token,
      body: { server_id: created.id },
    });
    assert.equal(stopped.status, 202);
    await until(async () => {
      const hooks = await nubis.admin('GET', `/admin/accounts/${erin.id}/webhooks`);
      return (
        hooks.body.webhooks[0].pending > 0 &&
        hooks.body.webhooks[0].deliveries.some((d: { last_error: string }) => d.last_error)
      );
    }, 'a failed delivery is shown with its error');

    down = false;
    await nubis.advance(600); // retries wait on the clock
    await until(() => received.some((r) => r.body.includes('"power":"stopped"')), 'deliveries resumed');

    const delivered = received.map((r) => JSON.parse(r.body) as Event);
    const expected = (await events(`?account=${erin.id}&limit=1000`)).map((event) => event.id);
    assert.deepEqual(
      delivered.map((event) => event.id),
      expected.slice(0, delivered.length),
      'every event, once, in order',
    );
    assert.deepEqual(
      delivered.filter((e) => e.resource.uuid === created.uuid && e.type.startsWith('server.')).map((e) => e.type),
      ['server.created', 'server.power', 'server.transition', 'server.power'],
    );
    for (const { body, headers } of received) {
      const [t, v1] = String(headers['nubis-signature']).split(',');
      const timestamp = t.slice(2);
      const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
      assert.equal(v1, `v1=${mac}`, 'signed with the secret');
      assert.equal(headers['nubis-event'], JSON.parse(body).type);
    }
    const hooks = await nubis.admin('GET', `/admin/accounts/${erin.id}/webhooks`);
    assert.equal(hooks.body.webhooks[0].pending, 0);
    assert.equal(hooks.body.webhooks[0].delivered, delivered.length);
    assert.equal((await nubis.admin('DELETE', `/admin/accounts/${erin.id}/webhooks/${added.body.id}`)).status, 204);
    assert.deepEqual((await nubis.admin('GET', `/admin/accounts/${erin.id}/webhooks`)).body.webhooks, []);
  });

  test('a webhook needs an http(s) URL and a secret; an unknown account is 404', async () => {
    const frank = await createAccount(nubis);
    const badUrl = await nubis.admin('POST', `/admin/accounts/${frank.id}/webhooks`, {
      url: 'ftp://example.com',
      secret: 'a-webhook-secret-0123456789',
    });
    assert.equal(badUrl.status, 400);
    assert.equal(badUrl.body.errors[0].field, 'url');
    const noAccount = await nubis.admin('POST', '/admin/accounts/nobody@example.com/webhooks', {
      url: receiverUrl,
      secret: 'a-webhook-secret-0123456789',
    });
    assert.equal(noAccount.status, 404);
  });
});
