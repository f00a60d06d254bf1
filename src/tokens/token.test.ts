// Black-box tests of the v1.3 token operations: list, create, rename, remove (rule 5 of
// Authentication included), their permissions, and isolation between accounts.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, login, type TestAccount } from '../../test/support/accounts.ts';
import { authenticateDigest, tokenDigestOf } from './token.service.ts';
import type { CachedActor } from '../platform/context.ts';

const timestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance();
});
after(async () => {
  await nubis.close();
});

async function tokens(account: { token: string }) {
  const result = await nubis.request('GET', '/v1.3/account/token_list', { token: account.token });
  assert.equal(result.status, 200);
  return result.body.tokens as {
    id: number;
    uuid: string;
    name: string;
    auth_token: string;
    created: string;
    last_used: string | null;
  }[];
}

describe('token_list and token_create', () => {
  test('register gives one token, listed in full with every field', async () => {
    const account = await createAccount(nubis);
    const list = await tokens(account);
    assert.equal(list.length, 1);
    const [token] = list;
    assert.deepEqual(Object.keys(token!).sort(), ['auth_token', 'created', 'id', 'last_used', 'name', 'uuid']);
    assert.equal(token!.auth_token, account.token);
    assert.match(token!.uuid, uuid);
    assert.equal(typeof token!.id, 'number');
    assert.match(token!.created, timestamp);
    // Listing is itself a use of the token.
    assert.match(token!.last_used!, timestamp);
  });

  test('create answers 201 {uuid, name, token, created}; the new token works and is listed', async () => {
    const account = await createAccount(nubis);
    const created = await nubis.request('POST', '/v1.3/account/token_create', {
      token: account.token,
      body: { name: 'ci' },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body).sort(), ['created', 'name', 'token', 'uuid']);
    assert.equal(created.body.name, 'ci');
    assert.match(created.body.token, /^[0-9a-f]{64}$/);
    assert.notEqual(created.body.token, account.token);
    assert.match(created.body.uuid, uuid);
    assert.match(created.body.created, timestamp);

    const info = await nubis.request('GET', '/v1.3/account/info', { token: created.body.token });
    assert.equal(info.status, 200);
    assert.equal(info.body.id, account.id);
    const listed = (await tokens(account)).find((t) => t.uuid === created.body.uuid);
    assert.equal(listed?.auth_token, created.body.token);
    assert.equal(listed?.name, 'ci');
  });

  test('create names each bad field in a 400', async () => {
    const account = await createAccount(nubis);
    const missing = await nubis.request('POST', '/v1.3/account/token_create', { token: account.token, body: {} });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body, { errors: [{ reason: 'missing required field', field: 'name' }] });
    const wrongType = await nubis.request('POST', '/v1.3/account/token_create', {
      token: account.token,
      body: { name: { nested: true } },
    });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.errors[0].field, 'name');
    assert.match(wrongType.body.errors[0].reason, /wrong data type/);
    const empty = await nubis.request('POST', '/v1.3/account/token_create', {
      token: account.token,
      body: { name: '' },
    });
    assert.equal(empty.status, 400);
    assert.equal(empty.body.errors[0].field, 'name');
  });
});

describe('token_rename', () => {
  test('renames by uuid and by id (202 success object)', async () => {
    const account = await createAccount(nubis);
    const [token] = await tokens(account);
    const byUuid = await nubis.request('PATCH', '/v1.3/account/token_rename', {
      token: account.token,
      body: { uuid: token!.uuid, name: 'by uuid' },
    });
    assert.equal(byUuid.status, 202);
    assert.deepEqual(byUuid.body, { success: { response: '202 Accepted', reason: '' } });
    assert.equal((await tokens(account))[0]!.name, 'by uuid');

    const byId = await nubis.request('PATCH', '/v1.3/account/token_rename', {
      token: account.token,
      body: { uuid: token!.id, name: 'by id' },
    });
    assert.equal(byId.status, 202);
    assert.equal((await tokens(account))[0]!.name, 'by id');
    const byNumericString = await nubis.request('PATCH', '/v1.3/account/token_rename', {
      token: account.token,
      body: { uuid: String(token!.id), name: 'by string id' },
    });
    assert.equal(byNumericString.status, 202);
    assert.equal((await tokens(account))[0]!.name, 'by string id');
  });

  test("an unknown token and another account's token both answer the same 404", async () => {
    const [mine, theirs] = await Promise.all([createAccount(nubis), createAccount(nubis)]);
    const [their] = await tokens(theirs);
    const other = await nubis.request('PATCH', '/v1.3/account/token_rename', {
      token: mine.token,
      body: { uuid: their!.uuid, name: 'stolen' },
    });
    const otherById = await nubis.request('PATCH', '/v1.3/account/token_rename', {
      token: mine.token,
      body: { uuid: their!.id, name: 'stolen' },
    });
    const missing = await nubis.request('PATCH', '/v1.3/account/token_rename', {
      token: mine.token,
      body: { uuid: '00000000-0000-4000-8000-000000000000', name: 'x' },
    });
    assert.equal(other.status, 404);
    assert.equal(otherById.status, 404);
    assert.equal(missing.status, 404);
    assert.deepEqual(other.body, missing.body);
    assert.deepEqual(otherById.body, missing.body);
    assert.deepEqual(missing.body, {
      errors: { response: '404 Not Found', reason: 'token not found, check the id or uuid' },
    });
    assert.equal((await tokens(theirs))[0]!.name, their!.name);
  });

  test('a malformed reference is a 400 naming uuid', async () => {
    const account = await createAccount(nubis);
    const result = await nubis.request('PATCH', '/v1.3/account/token_rename', {
      token: account.token,
      body: { uuid: 'not-a-uuid', name: 'x' },
    });
    assert.equal(result.status, 400);
    assert.equal(result.body.errors[0].field, 'uuid');
  });
});

describe('token_remove', () => {
  test('removes another token of the account by uuid and by id (204, no body)', async () => {
    const account = await createAccount(nubis);
    const a = await nubis.request('POST', '/v1.3/account/token_create', { token: account.token, body: { name: 'a' } });
    const b = await nubis.request('POST', '/v1.3/account/token_create', { token: account.token, body: { name: 'b' } });
    const removedByUuid = await nubis.request('DELETE', `/v1.3/account/token_remove/${a.body.uuid}`, {
      token: account.token,
    });
    assert.equal(removedByUuid.status, 204);
    assert.equal(removedByUuid.body, null);
    assert.equal((await nubis.request('GET', '/v1.3/account/info', { token: a.body.token })).status, 401);

    const bId = (await tokens(account)).find((t) => t.uuid === b.body.uuid)!.id;
    const removedById = await nubis.request('DELETE', `/v1.3/account/token_remove/${bId}`, { token: account.token });
    assert.equal(removedById.status, 204);
    assert.equal((await nubis.request('GET', '/v1.3/account/info', { token: b.body.token })).status, 401);
    assert.deepEqual(
      (await tokens(account)).map((t) => t.auth_token),
      [account.token],
    );

    const again = await nubis.request('DELETE', `/v1.3/account/token_remove/${bId}`, { token: account.token });
    assert.equal(again.status, 404);
  });

  test('rule 5: removing the calling token logs the caller out; a new login gives a working token', async () => {
    const account = await createAccount(nubis);
    const [own] = await tokens(account);
    const removed = await nubis.request('DELETE', `/v1.3/account/token_remove/${own!.uuid}`, { token: account.token });
    assert.equal(removed.status, 204);
    const after = await nubis.request('GET', '/v1.3/account/info', { token: account.token });
    assert.equal(after.status, 401);
    assert.deepEqual(after.body, {
      errors: {
        response: '401 Unauthorized',
        reason: 'authentication required: send a valid token as Authorization: Bearer <token>',
      },
    });

    // The account has no token left: login creates one.
    const fresh = await login(nubis, account.email, account.password);
    assert.notEqual(fresh, account.token);
    const info = await nubis.request('GET', '/v1.3/account/info', { token: fresh });
    assert.equal(info.status, 200);
    assert.equal(info.body.id, account.id);
    const list = await tokens({ token: fresh });
    assert.equal(list.length, 1);
    assert.equal(list[0]!.auth_token, fresh);
  });

  test('login returns the newest existing token rather than making one per login', async () => {
    const account = await createAccount(nubis);
    const created = await nubis.request('POST', '/v1.3/account/token_create', {
      token: account.token,
      body: { name: 'newest' },
    });
    assert.equal(await login(nubis, account.email, account.password), created.body.token);
    assert.equal(await login(nubis, account.email, account.password), created.body.token);
    assert.equal((await tokens(account)).length, 2);
  });

  test("another account's token answers 404 exactly like a missing one, and survives", async () => {
    const [mine, theirs] = await Promise.all([createAccount(nubis), createAccount(nubis)]);
    const [their] = await tokens(theirs);
    const byUuid = await nubis.request('DELETE', `/v1.3/account/token_remove/${their!.uuid}`, { token: mine.token });
    const byId = await nubis.request('DELETE', `/v1.3/account/token_remove/${their!.id}`, { token: mine.token });
    const missing = await nubis.request('DELETE', '/v1.3/account/token_remove/999999999', { token: mine.token });
    const garbage = await nubis.request('DELETE', '/v1.3/account/token_remove/not-an-id', { token: mine.token });
    for (const result of [byUuid, byId, missing, garbage]) {
      assert.equal(result.status, 404);
      assert.deepEqual(result.body, missing.body);
    }
    assert.equal((await nubis.request('GET', '/v1.3/account/info', { token: theirs.token })).status, 200);
  });

  test('token operations need a valid token', async () => {
    for (const [method, path, body] of [
      ['GET', '/v1.3/account/token_list', undefined],
      ['POST', '/v1.3/account/token_create', { name: 'x' }],
      ['PATCH', '/v1.3/account/token_rename', { uuid: 1, name: 'x' }],
      ['DELETE', '/v1.3/account/token_remove/1', undefined],
    ] as const) {
      const none = await nubis.request(method, path, { body });
      const bad = await nubis.request(method, path, { body, token: 'f'.repeat(64) });
      assert.equal(none.status, 401, `${method} ${path} without a token`);
      assert.equal(bad.status, 401, `${method} ${path} with an unknown token`);
      assert.equal(bad.body.errors.response, '401 Unauthorized');
    }
  });
});

describe('token permissions', () => {
  let account: TestAccount;
  before(async () => {
    account = await createAccount(nubis, { activate: false });
  });

  test('an account not yet activated may manage its tokens (they are not billable)', async () => {
    const created = await nubis.request('POST', '/v1.3/account/token_create', {
      token: account.token,
      body: { name: 'early' },
    });
    assert.equal(created.status, 201);
    const removed = await nubis.request('DELETE', `/v1.3/account/token_remove/${created.body.uuid}`, {
      token: account.token,
    });
    assert.equal(removed.status, 204);
  });

  test('without the tokens permission: create, rename and remove are 403, list still works', async () => {
    const patched = await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { permissions: { tokens: false } });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.permissions.tokens, false);
    const [own] = await tokens(account);
    const create = await nubis.request('POST', '/v1.3/account/token_create', {
      token: account.token,
      body: { name: 'x' },
    });
    const rename = await nubis.request('PATCH', '/v1.3/account/token_rename', {
      token: account.token,
      body: { uuid: own!.uuid, name: 'x' },
    });
    const remove = await nubis.request('DELETE', `/v1.3/account/token_remove/${own!.uuid}`, { token: account.token });
    for (const result of [create, rename, remove]) {
      assert.equal(result.status, 403);
      assert.equal(result.body.errors.response, '403 Forbidden');
      assert.match(result.body.errors.reason, /tokens permission/);
    }
    assert.equal((await tokens(account)).length, 1);
    await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { permissions: { tokens: true } });
  });

  test('a blocked account may read but not change its tokens', async () => {
    await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { blocked: true });
    const create = await nubis.request('POST', '/v1.3/account/token_create', {
      token: account.token,
      body: { name: 'x' },
    });
    assert.equal(create.status, 403);
    assert.match(create.body.errors.reason, /blocked/);
    assert.equal((await nubis.request('GET', '/v1.3/account/token_list', { token: account.token })).status, 200);
    await nubis.admin('PATCH', `/admin/accounts/${account.id}`, { blocked: false });
    assert.equal(
      (await nubis.request('POST', '/v1.3/account/token_create', { token: account.token, body: { name: 'x' } })).status,
      201,
    );
  });
});

describe('last_used', () => {
  test('is written when the token is used, at most once a minute of the clock', async () => {
    const account = await createAccount(nubis);
    const created = await nubis.request('POST', '/v1.3/account/token_create', {
      token: account.token,
      body: { name: 'fresh' },
    });
    const unused = (await tokens(account)).find((t) => t.uuid === created.body.uuid)!;
    assert.equal(unused.last_used, null);

    await nubis.request('GET', '/v1.3/account/info', { token: created.body.token });
    const first = (await tokens(account)).find((t) => t.uuid === created.body.uuid)!.last_used!;
    assert.match(first, timestamp);

    // Within the minute a use is not written again.
    await nubis.advance(30);
    await nubis.request('GET', '/v1.3/account/info', { token: created.body.token });
    assert.equal((await tokens(account)).find((t) => t.uuid === created.body.uuid)!.last_used, first);

    await nubis.advance(120);
    await nubis.request('GET', '/v1.3/account/info', { token: created.body.token });
    const second = (await tokens(account)).find((t) => t.uuid === created.body.uuid)!.last_used!;
    assert.ok(Date.parse(second) - Date.parse(first) >= 120_000, `${second} is two minutes after ${first}`);
  });
});

describe('storage of secrets', () => {
  test('the database holds neither a token nor a password in usable form', async () => {
    const account = await createAccount(nubis);
    const created = await nubis.request('POST', '/v1.3/account/token_create', {
      token: account.token,
      body: { name: 'stored' },
    });
    const db = nubis.running.ctx.db;
    const rows = JSON.stringify([
      await db.selectFrom('tokens').selectAll().where('account_id', '=', account.id).execute(),
      await db.selectFrom('accounts').selectAll().where('id', '=', account.id).execute(),
    ]);
    for (const secret of [account.token, created.body.token, account.password])
      assert.equal(rows.includes(secret), false);
    const stored = await db
      .selectFrom('tokens')
      .select(['digest', 'sealed'])
      .where('uuid', '=', created.body.uuid)
      .executeTakeFirstOrThrow();
    assert.match(stored.digest, /^[0-9a-f]{64}$/);
    assert.match(stored.sealed, /^v1\./);
    const account_ = await db
      .selectFrom('accounts')
      .select('password_hash')
      .where('id', '=', account.id)
      .executeTakeFirstOrThrow();
    assert.match(account_.password_hash, /^scrypt\$/);
  });
});

describe('the actor cache', () => {
  test('concurrent requests of an uncached token share one look-up; each sees its removal after', async () => {
    const alice = await createAccount(nubis);
    const { ctx } = nubis.running;
    const digest = tokenDigestOf(ctx, alice.token)!;
    const actors = ctx.actors as typeof ctx.actors & { store(digest: string, entry: CachedActor): void };
    const store = actors.store;
    let stored = 0;
    actors.store = (key, entry) => {
      if (key === digest) stored++;
      store.call(actors, key, entry);
    };
    try {
      ctx.actors.forget(digest);
      // Ten at once, none cached: one reads the database, the nine others wait for it and check its entry.
      const found = await Promise.all(Array.from({ length: 10 }, () => authenticateDigest(ctx, digest)));
      assert.deepEqual(
        found.map((actor) => actor?.accountId),
        Array(10).fill(alice.id),
      );
      assert.equal(stored, 1, 'one look-up cached the actor');

      const listed = await tokens(alice);
      const removed = await nubis.request('DELETE', `/v1.3/account/token_remove/${listed[0]!.uuid}`, {
        token: alice.token,
      });
      assert.equal(removed.status, 204);
      ctx.actors.forget(digest);
      const after = await Promise.all(Array.from({ length: 10 }, () => authenticateDigest(ctx, digest)));
      assert.deepEqual(after, Array(10).fill(null));
    } finally {
      actors.store = store;
    }
  });
});
