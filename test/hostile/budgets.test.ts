// Class 2 of issue 10: unauthenticated work is budgeted. A burst of logins from one address with
// distinct e-mails meets the per-address budget (429); a burst from many addresses meets the
// process-wide cap on password hashing (503 with Retry-After, not an unbounded queue); register,
// reset and activate have per-address budgets too. A real user's requests keep being answered,
// and no error-level line is logged.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { registerBody, uniqueEmail } from '../support/accounts.ts';
import { hostileClientSuite } from '../support/logs.ts';

const PER_ADDRESS = 6;
const PER_EMAIL = 3;
const OTHER_BUDGETS = 4;
const { nubis, account } = await hostileClientSuite({
  // The test client is the proxy; 203.0.113.9 a second one, so the first X-Forwarded-For entry is the client.
  TRUST_PROXY: '127.0.0.1,::1,203.0.113.9',
  RATE_LOGIN_PER_ADDRESS_PER_MINUTE: String(PER_ADDRESS),
  RATE_LOGIN_PER_MINUTE: String(PER_EMAIL),
  RATE_REGISTER_PER_MINUTE: String(OTHER_BUDGETS),
  RATE_RESET_PER_MINUTE: String(OTHER_BUDGETS),
  RATE_ACTIVATE_PER_MINUTE: String(OTHER_BUDGETS),
  // Slow enough hashing, and room for one login's two checks at a time.
  PASSWORD_HASH_COST: '14',
  PASSWORD_HASH_CONCURRENCY: '2',
});

/** A fresh client address, never used before in this file (believed: it comes through the listed proxies). */
let addresses = 0;
const address = () => {
  addresses++;
  return `10.${Math.floor(addresses / 250) % 250}.${addresses % 250}.${1 + (randomBytes(1)[0]! % 250)}, 203.0.113.9`;
};

async function login(from: string, email: string) {
  return nubis.request('POST', '/v1.3/account/login', {
    body: { email, password: `pw-${randomBytes(6).toString('hex')}` },
    headers: { 'x-forwarded-for': from },
  });
}

test('logins from one address with distinct e-mails meet the per-address budget', async () => {
  const from = address();
  const answers = [];
  // One at a time, so only the budget (not the hashing cap) can refuse.
  for (let i = 0; i < PER_ADDRESS * 3; i++) answers.push(await login(from, uniqueEmail('burst')));
  const accepted = answers.filter((a) => a.status === 200).length;
  const refused = answers.filter((a) => a.status === 429);
  assert.equal(accepted, PER_ADDRESS, `${accepted} logins accepted from one address`);
  assert.equal(refused.length, answers.length - PER_ADDRESS);
  for (const answer of refused) {
    assert.ok(Number(answer.headers.get('retry-after')) >= 1, 'a refusal says when to retry');
    assert.equal(answer.headers.get('ratelimit-limit'), String(PER_ADDRESS));
  }
  // Another address is not affected, and the per-e-mail budget still holds on its own.
  const other = address();
  const email = uniqueEmail('one');
  const perEmail = [];
  for (let i = 0; i < PER_EMAIL + 2; i++) perEmail.push((await login(other, email)).status);
  assert.deepEqual(perEmail, [...Array(PER_EMAIL).fill(200), 429, 429]);
});

test('a burst of concurrent logins from many addresses meets the hashing cap, 503 with Retry-After', async () => {
  let done = false;
  let served = 0;
  const user = (async () => {
    while (!done) {
      const info = await nubis.request('GET', '/v1.3/account/info', { token: account.token });
      assert.equal(info.status, 200);
      served++;
    }
  })();
  let answers: Awaited<ReturnType<typeof login>>[];
  try {
    answers = await Promise.all(Array.from({ length: 30 }, () => login(address(), uniqueEmail('flood'))));
  } finally {
    done = true;
    await user;
  }
  const statuses = answers.map((a) => a.status);
  assert.ok(
    statuses.every((s) => s === 200 || s === 503),
    `only answers or refusals: ${statuses.join(',')}`,
  );
  const refused = answers.filter((a) => a.status === 503);
  assert.ok(refused.length > 0, 'the excess is refused, not queued');
  assert.ok(statuses.includes(200), 'some logins are served');
  for (const answer of refused) {
    assert.equal(answer.headers.get('retry-after'), '1');
    assert.match(JSON.stringify(answer.body), /retry/);
  }
  assert.ok(served > 0, 'a real user was answered during the burst');
  // Once the burst is over, logins work again.
  assert.equal((await login(address(), account.email)).status, 200);
});

test('register, reset and activate have per-address budgets', async () => {
  const calls: [string, (from: string) => Promise<{ status: number }>][] = [
    [
      'register',
      (from) =>
        nubis.request('POST', '/v1.3/account/register', {
          body: registerBody(),
          headers: { 'x-forwarded-for': from },
        }),
    ],
    [
      'reset',
      (from) =>
        nubis.request('PATCH', '/v1.3/account/reset', {
          body: { email: uniqueEmail('reset') },
          headers: { 'x-forwarded-for': from },
        }),
    ],
    [
      'activate',
      (from) =>
        nubis.request('PUT', '/v1.3/account/activate', {
          body: { uuid: crypto.randomUUID() },
          headers: { 'x-forwarded-for': from },
        }),
    ],
  ];
  for (const [name, call] of calls) {
    const from = address();
    const statuses: number[] = [];
    for (let i = 0; i < OTHER_BUDGETS + 3; i++) statuses.push((await call(from)).status);
    const refused = statuses.filter((s) => s === 429).length;
    assert.equal(refused, 3, `${name}: ${statuses.join(',')}`);
    assert.ok(
      statuses.slice(0, OTHER_BUDGETS).every((s) => s !== 429),
      `${name}: ${statuses.join(',')}`,
    );
  }
});
