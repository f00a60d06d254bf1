// A server's activity (GET /v1.3/server/activity/{id}, issue 25): its history from the events
// Nubis recorded, newest first, with who or what caused each; only the owner sees it.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount } from '../../test/support/accounts.ts';
import {
  bootThenSnapshot,
  deployServer,
  orderServer,
  quickSystemClock,
  SETTLE_SECONDS,
} from '../../test/support/servers.ts';
import { serverImages } from '../db/migrations/0015_server_images.ts';

let nubis: TestInstance;

before(async () => {
  nubis = await startTestInstance();
});
after(() => nubis.close());

interface Entry {
  id: number;
  type: string;
  cause: string | null;
  occurred: string;
  resource: { type: string; uuid: string };
  data: Record<string, unknown>;
}

async function activity(token: string, ref: string | number): Promise<Entry[]> {
  const answer = await nubis.request('GET', `/v1.3/server/activity/${ref}`, { token });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.activity;
}

/** An entry as one line: type, the state it names, and its cause. */
const line = (entry: Entry) =>
  [entry.type, entry.data.transition ?? entry.data.power ?? entry.data.name ?? '', `by ${entry.cause}`]
    .filter(Boolean)
    .join(' ');

describe("a server's activity", () => {
  test('tells the life newest first, each with its cause', async () => {
    const alice = await createAccount(nubis);
    const created = await deployServer(nubis, alice.token);
    const act = async (path: string) => {
      const answer = await nubis.request('PATCH', `/v1.3/server/${path}`, {
        token: alice.token,
        body: { server_id: created.id },
      });
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
      await nubis.advance(SETTLE_SECONDS);
    };
    await act('stop');
    await act('start');
    const snapshot = await nubis.request('POST', '/v1.3/snapshot/create', {
      token: alice.token,
      body: { name: 'before-upgrade', server_id: created.id },
    });
    assert.equal(snapshot.status, 201, JSON.stringify(snapshot.body));
    await nubis.advance(SETTLE_SECONDS);
    const forced = await nubis.admin('POST', `/admin/servers/${created.uuid}/stop`);
    assert.equal(forced.status, 200, JSON.stringify(forced.body));

    const entries = await activity(alice.token, created.uuid);
    assert.deepEqual(
      entries.map((entry) => entry.id),
      entries.map((entry) => entry.id).sort((a, b) => b - a),
      'newest first',
    );
    assert.deepEqual(entries.map(line).reverse(), [
      'server.created web 1 by customer',
      'server.power running by engine',
      'server.transition stopping by customer',
      'server.power stopped by engine',
      'server.transition booting by customer',
      'server.power running by engine',
      'snapshot.created before-upgrade by customer',
      'server.transition snapshotting by customer',
      'snapshot.completed by engine',
      'server.power running by engine',
      'server.power stopped by operator',
    ]);
    // The same by integer id; no billing lines.
    assert.deepEqual(await activity(alice.token, created.id), entries);
    assert.ok(entries.every((entry) => !entry.type.startsWith('invoice_item.')));
  });

  // The images were found by reading every image event of the account, a cost that grew with its
  // history; they are now noted as they are taken (migration 0015 fills the note from the events).
  test("tells its images' events, a removed image's too, and no other server's; so does a database migrated from before", async () => {
    const alice = await createAccount(nubis);
    const [mine, other] = [await deployServer(nubis, alice.token), await deployServer(nubis, alice.token)];
    const snapshot = async (server: { id: number }, name: string) => {
      const answer = await nubis.request('POST', '/v1.3/snapshot/create', {
        token: alice.token,
        body: { name, server_id: server.id },
      });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      await nubis.advance(SETTLE_SECONDS);
      return answer.body.uuid as string;
    };
    await snapshot(mine, 'kept');
    const gone = await snapshot(mine, 'gone');
    await snapshot(other, 'elsewhere');
    const removed = await nubis.request('DELETE', `/v1.3/snapshot/remove/${gone}`, { token: alice.token });
    assert.equal(removed.status, 204);
    const images = async () =>
      (await activity(alice.token, mine.uuid))
        .filter((entry) => entry.resource.type === 'snapshot')
        .map((entry) => `${entry.type} ${entry.data.name ?? ''}`.trim())
        .reverse();
    const told = [
      'snapshot.created kept',
      'snapshot.completed',
      'snapshot.created gone',
      'snapshot.completed',
      'snapshot.removed',
    ];
    assert.deepEqual(await images(), told);
    // A database from before the note: the migration fills it from the events recorded.
    const db = nubis.running.ctx.db;
    await db.schema.dropTable('server_images').execute();
    await serverImages().up(db as never);
    assert.deepEqual(await images(), told);
  });

  test("another account's server is not found, nor is a reference to none; a token is needed", async () => {
    const alice = await createAccount(nubis);
    const bob = await createAccount(nubis);
    const created = await orderServer(nubis, alice.token, {});
    const answer = await nubis.request('GET', `/v1.3/server/activity/${created.uuid}`, { token: bob.token });
    assert.equal(answer.status, 404);
    // As server/info answers the same reference.
    for (const ref of ['not-a-server', '0', '99999999']) {
      const bad = await nubis.request('GET', `/v1.3/server/activity/${ref}`, { token: alice.token });
      const info = await nubis.request('GET', `/v1.3/server/info/${ref}`, { token: alice.token });
      assert.equal(bad.status, info.status, ref);
      assert.ok(bad.status === 400 || bad.status === 404, `${ref}: ${bad.status}`);
    }
    const anonymous = await nubis.request('GET', `/v1.3/server/activity/${created.uuid}`);
    assert.equal(anonymous.status, 401);
  });
});

// Time that passes with no clock advance and no sweep (the system clock): the read itself tells
// the transitions that ended. It asks for the earliest due time first and opens a transaction
// only when that has come, so it must find a due event and not one that is still to come.
describe('a server’s activity on the system clock, with no sweep running', () => {
  let live: TestInstance;
  before(async () => {
    live = await startTestInstance(quickSystemClock);
  });
  after(() => live.close());

  test('tells the end of provisioning once it has come, and not before', async () => {
    const alice = await createAccount(live);
    const asked = Date.now();
    const created = await orderServer(live, alice.token, {});
    const types = async () =>
      (await live.request('GET', `/v1.3/server/activity/${created.uuid}`, { token: alice.token })).body.activity.map(
        (entry: Entry) => `${entry.type} ${entry.data.power ?? ''}`.trim(),
      );
    assert.deepEqual(await types(), ['server.created']);
    // Read until the end is told (bounded), not after a fixed wait: never before its second has come.
    const until = Date.now() + 60_000;
    for (;;) {
      const read = Date.now();
      const told = await types();
      if (told.length > 1) {
        assert.deepEqual(told, ['server.power running', 'server.created']);
        assert.ok(Date.now() - asked >= 1_000, `told ${Date.now() - asked} ms after the create`);
        break;
      }
      assert.deepEqual(told, ['server.created']);
      assert.ok(read < until, 'the end of provisioning was never told');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  // A transition's end is written down when it is next read, after what happened since: the
  // list is in the order things happened, not the order they were recorded (issue 39).
  test('lists a boot that ended before a snapshot below the snapshot, though recorded after it', async () => {
    const alice = await createAccount(live);
    const created = await bootThenSnapshot(live, alice.token, 'booted', 'after-boot');
    const entries: Entry[] = (
      await live.request('GET', `/v1.3/server/activity/${created.uuid}`, { token: alice.token })
    ).body.activity;
    const told = entries.map((entry) =>
      `${entry.type} ${entry.data.transition ?? entry.data.power ?? entry.data.name ?? ''}`.trim(),
    );
    assert.ok(
      told.indexOf('snapshot.created after-boot') < told.indexOf('server.power running'),
      `the snapshot is listed above the boot's end: ${told.join(', ')}`,
    );
    const times = entries.map((entry) => Date.parse(entry.occurred));
    assert.deepEqual(
      times,
      [...times].sort((x, y) => y - x),
      'newest first by the time each happened',
    );
  });
});
