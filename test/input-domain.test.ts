// The input domain both databases share (src/http/input-domain.ts, src/platform/ids.ts): text
// either database cannot store is a 400 naming the field, an id no row can have is a 404, a
// boolean is never a number, an id, a string or an amount, numbers and booleans written as
// strings are accepted, and null in an optional field is absent. Run on SQLite and PostgreSQL.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestInstance, type TestInstance } from './support/instance.ts';
import { createAccount, type TestAccount } from './support/accounts.ts';
import { deployServer, ecdsaPublicKey, standardServer } from './support/servers.ts';
import { textWithForbiddenCharacter } from './support/openapi.ts';

/** The fields a 400 names, in v1.3 (`errors`) or legacy (`fields`) shape. */
function namedFields(body: { errors?: unknown; fields?: unknown }): string[] {
  const list = (Array.isArray(body?.errors) ? body.errors : Array.isArray(body?.fields) ? body.fields : []) as {
    field: string;
  }[];
  return list.map((entry) => entry.field);
}

describe('the input domain, the same on both databases', () => {
  let nubis: TestInstance;
  let account: TestAccount;
  let serverId: number;

  before(async () => {
    nubis = await startTestInstance({}, { captureLog: true });
    account = await createAccount(nubis);
    serverId = (await deployServer(nubis, account.token)).id;
  });
  after(async () => {
    await nubis?.close();
  });

  it('refuses text with NUL, other control characters or unpaired surrogates: 400 naming the field', async () => {
    const targets: { method: string; path: string; field: string; body: (text: string) => object; public?: boolean }[] =
      [
        {
          method: 'POST',
          path: '/v1.3/account/register',
          field: 'firstname',
          public: true,
          body: (t) => ({ firstname: t }),
        },
        {
          method: 'POST',
          path: '/v1.3/account/login',
          field: 'email',
          public: true,
          body: (t) => ({ email: t, password: 'x' }),
        },
        { method: 'PATCH', path: '/v1.3/account/reset', field: 'email', public: true, body: (t) => ({ email: t }) },
        {
          method: 'POST',
          path: '/v1.3/ssh_key/create',
          field: 'name',
          body: (t) => ({ name: t, public_key: ecdsaPublicKey() }),
        },
        { method: 'POST', path: '/v1.3/account/token_create', field: 'name', body: (t) => ({ name: t }) },
        { method: 'POST', path: '/v1.3/server/create', field: 'label', body: (t) => ({ ...standardServer, label: t }) },
        {
          method: 'POST',
          path: '/v1.3/snapshot/create',
          field: 'description',
          body: (t) => ({ server_id: serverId, description: t }),
        },
        { method: 'PATCH', path: '/v1.3/server/start', field: 'server_id', body: (t) => ({ server_id: t }) },
      ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), textWithForbiddenCharacter, async (target, text) => {
        const result = await nubis.request(target.method, target.path, {
          token: target.public ? null : account.token,
          body: target.body(text),
        });
        assert.equal(result.status, 400, `${target.path} ${JSON.stringify(text)}: ${JSON.stringify(result.body)}`);
        assert.ok(namedFields(result.body).includes(target.field), JSON.stringify(result.body));
      }),
      { numRuns: 60 },
    );
    // In a path parameter and a legacy form field too.
    const inPath = await nubis.request('DELETE', '/v1.3/ssh_key/remove/ab%00cd', { token: account.token });
    assert.equal(inPath.status, 400);
    assert.deepEqual(namedFields(inPath.body), ['ssh_key_id']);
    const inForm = await nubis.request('POST', '/v1/server/reboot', {
      token: account.token,
      form: { SUBID: `${serverId}\u0000` },
    });
    assert.equal(inForm.status, 400);
    assert.deepEqual(namedFields(inForm.body), ['SUBID']);
    // Tab, line feed and carriage return are ordinary text.
    const tabbed = await nubis.request('POST', '/v1.3/account/token_create', {
      token: account.token,
      body: { name: 'a\tb\nc\r' },
    });
    assert.equal(tabbed.status, 201, JSON.stringify(tabbed.body));
  });

  it('answers 404 for an id no row can have, in paths, bodies and legacy forms', async () => {
    const huge = fc.oneof(fc.integer({ min: 2 ** 31, max: Number.MAX_SAFE_INTEGER }), fc.constant(2 ** 31));
    await fc.assert(
      fc.asyncProperty(huge, fc.boolean(), async (id, asText) => {
        const ref = asText ? String(id) : id;
        const calls = [
          nubis.request('GET', `/v1.3/server/info/${id}`, { token: account.token }),
          nubis.request('DELETE', `/v1.3/ssh_key/remove/${id}`, { token: account.token }),
          nubis.request('DELETE', `/v1.3/snapshot/remove/${id}`, { token: account.token }),
          nubis.request('DELETE', `/v1.3/account/token_remove/${id}`, { token: account.token }),
          nubis.request('DELETE', `/v1.3/vpc/remove/${id}`, { token: account.token }),
          nubis.request('DELETE', `/v1.3/floating_ip/remove/${id}`, { token: account.token }),
          nubis.request('PATCH', '/v1.3/server/reboot', { token: account.token, body: { server_id: ref, name: 'n' } }),
          nubis.request('PATCH', '/v1.3/ssh_key/rename', { token: account.token, body: { id: ref, name: 'n' } }),
          nubis.request('POST', '/v1.3/snapshot/create', {
            token: account.token,
            body: { server_id: ref, name: 'n' },
          }),
          nubis.request('POST', '/v1.3/server/create', {
            token: account.token,
            body: { ...standardServer, ssh_key: ref },
          }),
          nubis.request('POST', '/v1/server/reboot', { token: account.token, form: { SUBID: id } }),
          nubis.admin('POST', `/admin/accounts/${id}/credit`, { amount: 1 }),
        ];
        for (const result of await Promise.all(calls))
          assert.equal(result.status, 404, `${id}: ${JSON.stringify(result.body)}`);
      }),
      { numRuns: 15 },
    );
  });

  it('never takes a boolean as a number, an id, a string or an amount', async () => {
    const cases: [string, string, object, string][] = [
      ['PATCH', '/v1.3/server/reboot', { server_id: true }, 'server_id'],
      ['POST', '/v1.3/server/create', { ...standardServer, commit: true }, 'commit'],
      ['POST', '/v1.3/server/create', { ...standardServer, label: true }, 'label'],
      ['POST', '/v1.3/server/create', { ...standardServer, region: true }, 'region'],
      ['POST', '/v1.3/account/token_create', { name: false }, 'name'],
      ['PUT', `/v1.3/option/set/${serverId}`, { name: 'bw_overage_threshold', value: true }, 'value'],
      ['POST', '/v1.3/invoice/sum', { from: true }, 'from'],
      ['POST', '/v1.3/server/rescue', { server_id: serverId, enable: 1 }, 'enable'],
      ['POST', '/v1.3/server/create', { ...standardServer, ddos_protection: 0 }, 'ddos_protection'],
    ];
    for (const [method, path, body, field] of cases) {
      const result = await nubis.request(method, path, { token: account.token, body });
      assert.equal(result.status, 400, `${path} ${JSON.stringify(body)}: ${JSON.stringify(result.body)}`);
      assert.ok(namedFields(result.body).includes(field), `${path}: ${JSON.stringify(result.body)}`);
    }
    const amount = await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, { amount: true });
    assert.equal(amount.status, 400);
    assert.deepEqual(namedFields(amount.body), ['amount']);
    const balance = await nubis.request('GET', '/v1.3/account/info', { token: account.token });
    assert.equal(balance.body.balance > 0, true);
  });

  it('accepts numbers and booleans written as strings, and takes null in an optional field as absent', async () => {
    const created = await nubis.request('POST', '/v1.3/server/create', {
      token: account.token,
      body: {
        ...standardServer,
        region: String(standardServer.region),
        plan: ` ${standardServer.plan} `,
        commit: '0',
        ipv6_networking: 'true',
        ddos_protection: 'false',
        ssh_key: null,
        vpc: null,
        script_url: null,
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.ok(created.body.info.ipv6_enabled);
    assert.equal(created.body.info.ddos_protection, false);
    assert.equal(created.body.info.ssh_key_id, null);
    const renamed = await nubis.request('PATCH', '/v1.3/account/update', {
      token: account.token,
      body: { firstname: null, lastname: 'Renamed', dark_mode: 'true' },
    });
    assert.equal(renamed.status, 202, JSON.stringify(renamed.body));
    const info = await nubis.request('GET', '/v1.3/account/info', { token: account.token });
    assert.equal(info.body.profile.firstname, 'Test');
    assert.equal(info.body.profile.dark_mode, true);
    // null in a required field is still missing.
    const missing = await nubis.request('POST', '/v1.3/account/token_create', {
      token: account.token,
      body: { name: null },
    });
    assert.equal(missing.status, 400);
    assert.deepEqual(namedFields(missing.body), ['name']);
  });

  it('refuses a number or boolean written as a string with a control character around it: 400 naming the field', async () => {
    // The fuzz found `region_id=1%0B` answered 200: JavaScript's \s (and Number()) take vertical tab
    // and form feed for spaces, so the conversion read "1\v" as 1 before the text rules saw it.
    for (const around of ['\v', '\f', '\u0085', '\u00a0']) {
      const listed = await nubis.request('GET', `/v1.3/image/list?region_id=1${encodeURIComponent(around)}`);
      assert.equal(
        listed.status,
        400,
        `region_id=1 + U+${around.codePointAt(0)?.toString(16)}: ${JSON.stringify(listed.body)}`,
      );
      assert.deepEqual(namedFields(listed.body), ['region_id']);
      const created = await nubis.request('POST', '/v1.3/server/create', {
        token: account.token,
        body: { ...standardServer, plan: `${around}${standardServer.plan}` },
      });
      assert.equal(created.status, 400, JSON.stringify(created.body));
      assert.deepEqual(namedFields(created.body), ['plan']);
      const flagged = await nubis.request('POST', '/v1.3/server/create', {
        token: account.token,
        body: { ...standardServer, ipv6_networking: `true${around}` },
      });
      assert.equal(flagged.status, 400, JSON.stringify(flagged.body));
      assert.deepEqual(namedFields(flagged.body), ['ipv6_networking']);
    }
  });

  it('wrote no error-level log line for any of it', () => {
    assert.deepEqual(nubis.errorLog(), []);
  });
});
