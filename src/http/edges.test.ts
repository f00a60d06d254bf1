// Issue 10, classes 9 and 10 (the method half): generated from the served OpenAPI document.
// Every path answers each method it does not serve (TRACE included) with 405 and an Allow header
// naming the ones it does, on every API and on the health, OpenAPI and /docs paths; every answer
// carries `X-Content-Type-Options: nosniff` and `Cache-Control: no-store` (answers carry tokens,
// passwords and root passwords); no page can be framed by another origin.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { ADMIN_TOKEN, startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, registerBody, type TestAccount } from '../../test/support/accounts.ts';

let nubis: TestInstance;
let account: TestAccount;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
before(async () => {
  nubis = await startTestInstance();
  account = await createAccount(nubis);
});
after(async () => {
  agent.destroy();
  await nubis.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Plain node:http, as fetch refuses TRACE. */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const length: Record<string, string> =
      body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = httpRequest(`${nubis.url}${path}`, { method, headers: { ...headers, ...length }, agent }, (res) => {
      // An event stream never ends: its headers are what is checked.
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        res.destroy();
        return resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
      }
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', (error) => reject(new Error(`${method} ${path}: ${error.message}`)));
    req.end(body);
  });
}

const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];

/** Every documented path (and the undocumented /docs pages) with the methods it serves. */
async function servedPaths(): Promise<Map<string, Set<string>>> {
  const doc = (await nubis.request('GET', '/openapi.json')).body;
  const served = new Map<string, Set<string>>([
    ['/openapi.json', new Set(['GET', 'HEAD'])],
    ['/docs', new Set(['GET', 'HEAD'])],
    ['/docs/', new Set(['GET', 'HEAD'])],
    ['/docs/json', new Set(['GET', 'HEAD'])],
  ]);
  for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
    const concrete = path.replace(/\{[^}]+\}/g, '1');
    const set = served.get(concrete) ?? new Set<string>();
    for (const method of Object.keys(item)) if (methods.includes(method.toUpperCase())) set.add(method.toUpperCase());
    if (set.has('GET')) set.add('HEAD');
    served.set(concrete, set);
  }
  return served;
}

// Every path × method: a hang guard of its own, as above (77 s at load ~20).
test('every method a path does not serve answers 405 with Allow, TRACE included, on every API', {
  timeout: 600_000,
}, async () => {
  const served = await servedPaths();
  assert.ok(served.size > 50, `only ${served.size} paths in the document`);
  for (const prefix of ['/healthz', '/readyz', '/v1.3/', '/v1/', '/admin/'])
    assert.ok(
      [...served.keys()].some((path) => path.startsWith(prefix)),
      `no path under ${prefix}`,
    );
  const checks: Promise<void>[] = [];
  for (const [path, allowed] of served) {
    for (const method of methods.filter((m) => !allowed.has(m))) {
      checks.push(
        raw(method, path, { authorization: `Bearer ${path.startsWith('/admin') ? ADMIN_TOKEN : account.token}` }).then(
          (answer) => {
            assert.equal(answer.status, 405, `${method} ${path}: ${answer.status} ${answer.body.slice(0, 200)}`);
            const allow = String(answer.headers.allow ?? '')
              .split(/,\s*/)
              .filter(Boolean);
            assert.deepEqual(new Set(allow), allowed, `${method} ${path}: Allow ${answer.headers.allow}`);
            if (method !== 'HEAD') assert.match(answer.body, /405|wrong method/, `${method} ${path}: a readable body`);
          },
        ),
      );
    }
  }
  assert.ok(checks.length > served.size, 'several methods per path');
  await Promise.all(checks);
});

// Every path × method × credential, one by one (a call may end its own token): thousands of requests, so a
// hang guard of its own (the suite's 120 s was outlasted at load ~20).
test('every answer has nosniff and no-store, whatever its status, and nothing can be framed elsewhere', {
  timeout: 600_000,
}, async () => {
  const served = await servedPaths();
  // Its own account: the authenticated calls below may remove its token. No operator token on a
  // change (POST /admin/reset would empty the server): those are checked unauthenticated.
  const scratch = await createAccount(nubis);
  const answers: [string, RawAnswer][] = [];
  for (const [path, allowed] of served) {
    for (const method of methods) {
      const operator = path.startsWith('/admin');
      const token = operator ? ADMIN_TOKEN : scratch.token;
      const readOnly = ['GET', 'HEAD'].includes(method) || !allowed.has(method);
      for (const headers of operator && !readOnly
        ? [{} as Record<string, string>]
        : [{} as Record<string, string>, { authorization: `Bearer ${token}` }]) {
        const body = allowed.has(method) && !['GET', 'HEAD'].includes(method) ? '{}' : undefined;
        const contentType: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
        answers.push([`${method} ${path}`, await raw(method, path, { ...headers, ...contentType }, body)]);
      }
    }
  }
  assert.ok(new Set(answers.map(([, a]) => a.status)).size >= 5, 'answers of many statuses were checked');
  for (const [where, answer] of answers) {
    assert.equal(answer.headers['x-content-type-options'], 'nosniff', `${where} ${answer.status}`);
    if (!where.includes('/docs'))
      assert.equal(answer.headers['cache-control'], 'no-store', `${where} ${answer.status}`);
    assert.match(String(answer.headers['content-security-policy']), /frame-ancestors 'self'/, where);
    assert.equal(answer.headers['x-frame-options'], 'SAMEORIGIN', where);
  }
});

test('answers carrying a token, a password or a root password are no-store', async () => {
  const secretAnswers = [
    await nubis.request('POST', '/v1.3/account/register', { body: registerBody() }),
    await nubis.request('POST', '/v1.3/account/login', { body: { email: account.email, password: account.password } }),
    await nubis.request('POST', '/v1.3/account/token_create', { token: account.token, body: { name: 'cache' } }),
    await nubis.request('GET', '/v1/account/createkey', { token: account.token }),
  ];
  for (const answer of secretAnswers) {
    assert.ok(answer.status < 300, JSON.stringify(answer.body));
    assert.equal(answer.headers.get('cache-control'), 'no-store');
  }
  const docs = await raw('GET', '/docs/');
  assert.equal(docs.status, 200);
  assert.equal(docs.headers['x-frame-options'], 'SAMEORIGIN');
  assert.match(String(docs.headers['content-security-policy']), /frame-ancestors 'self'/);
});
