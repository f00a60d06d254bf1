// Black-box tests of the rate limits: the 429 shape and headers of each budget (register,
// login per address and e-mail, activate, reset, account info and update per token, the
// general per-token budget), real time rather than the virtual clock, and, with Redis,
// one budget shared by every instance.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestInstance, testDb, type HttpResult, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, registerBody, uniqueEmail } from '../../test/support/accounts.ts';
import { loadConfig } from '../config.ts';
import { createRateLimiters, RateLimited } from './rate-limit.ts';

const tight = {
  RATE_REGISTER_PER_MINUTE: '2',
  RATE_LOGIN_PER_MINUTE: '2',
  RATE_ACTIVATE_PER_MINUTE: '2',
  RATE_RESET_PER_MINUTE: '2',
  RATE_ACCOUNT_INFO_PER_MINUTE: '2',
  RATE_ACCOUNT_UPDATE_PER_MINUTE: '2',
};

function assertLimited(result: HttpResult, limit: number, label: string): void {
  assert.equal(result.status, 429, label);
  assert.deepEqual(
    result.body,
    { errors: { response: '429 Too Many Requests', reason: 'rate limit exceeded, retry in a few moments' } },
    label,
  );
  const retryAfter = Number(result.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `${label}: Retry-After ${retryAfter}`);
  assert.equal(result.headers.get('ratelimit-limit'), String(limit), label);
  assert.equal(result.headers.get('ratelimit-remaining'), '0', label);
  assert.equal(result.headers.get('ratelimit-reset'), String(retryAfter), label);
}

describe('per-operation budgets', () => {
  let nubis: TestInstance;
  before(async () => {
    nubis = await startTestInstance(tight);
  });
  after(async () => {
    await nubis.close();
  });

  test('register: a budget per client address, with RateLimit headers on every answer', async () => {
    const first = await nubis.request('POST', '/v1.3/account/register', { body: registerBody() });
    assert.equal(first.status, 201);
    assert.equal(first.headers.get('ratelimit-limit'), '2');
    assert.equal(first.headers.get('ratelimit-remaining'), '1');
    assert.ok(Number(first.headers.get('ratelimit-reset')) > 0);
    assert.equal((await nubis.request('POST', '/v1.3/account/register', { body: registerBody() })).status, 201);
    // Invalid requests count too, so a guesser cannot probe for free; the third is refused either way.
    assertLimited(
      await nubis.request('POST', '/v1.3/account/register', { body: registerBody() }),
      2,
      'third registration',
    );
    assertLimited(await nubis.request('POST', '/v1.3/account/register', { body: {} }), 2, 'invalid registration');
  });

  test('the budgets run on real time: moving the virtual clock does not refill them', async () => {
    await nubis.advance(3600);
    assertLimited(
      await nubis.request('POST', '/v1.3/account/register', { body: registerBody() }),
      2,
      'after a virtual hour',
    );
  });

  test('login: a budget per address and e-mail (in any case), taken from the body', async () => {
    const email = uniqueEmail('guessed');
    for (let i = 0; i < 2; i++) {
      assert.equal(
        (await nubis.request('POST', '/v1.3/account/login', { body: { email, password: `guess ${i}` } })).status,
        200,
      );
    }
    assertLimited(
      await nubis.request('POST', '/v1.3/account/login', {
        body: { email: email.toUpperCase(), password: 'guess 3' },
      }),
      2,
      'third guess',
    );
    // Another e-mail from the same address has its own budget.
    assert.equal(
      (
        await nubis.request('POST', '/v1.3/account/login', {
          body: { email: uniqueEmail('other'), password: 'guess' },
        })
      ).status,
      200,
    );
  });

  test('activate and reset: a budget per client address', async () => {
    for (const [method, path, body] of [
      ['PUT', '/v1.3/account/activate', { uuid: '00000000-0000-4000-8000-000000000000' }],
      ['PATCH', '/v1.3/account/reset', { email: uniqueEmail('reset') }],
    ] as const) {
      for (let i = 0; i < 2; i++) assert.equal((await nubis.request(method, path, { body })).status, 202, path);
      assertLimited(await nubis.request(method, path, { body }), 2, path);
    }
  });

  test('account info and update: a budget per token', async () => {
    // Accounts come from a roomier server: this one's register budget is spent.
    const other = await startTestInstance({ ...tight, RATE_REGISTER_PER_MINUTE: '100' });
    try {
      const account = await createAccount(other, { activate: false });
      // createAccount read account/info once with this token.
      assert.equal((await other.request('GET', '/v1.3/account/info', { token: account.token })).status, 200);
      assertLimited(
        await other.request('GET', '/v1.3/account/info', { token: account.token }),
        2,
        'third account/info',
      );
      const second = await other.request('POST', '/v1.3/account/token_create', {
        token: account.token,
        body: { name: 'second' },
      });
      assert.equal((await other.request('GET', '/v1.3/account/info', { token: second.body.token })).status, 200);

      for (let i = 0; i < 2; i++)
        assert.equal(
          (await other.request('PATCH', '/v1.3/account/update', { token: account.token, body: { firstname: `N${i}` } }))
            .status,
          202,
        );
      assertLimited(
        await other.request('PATCH', '/v1.3/account/update', { token: account.token, body: { firstname: 'N3' } }),
        2,
        'third update',
      );
    } finally {
      await other.close();
    }
  });
});

describe('the general per-token budget', () => {
  test('counts every authenticated request of a token, per second', async () => {
    const nubis = await startTestInstance({ RATE_TOKEN_PER_SECOND: '3' });
    try {
      const account = await createAccount(nubis);
      // Twenty at once: three fit in each second, so however slow the machine, some are refused.
      const results = await Promise.all(
        Array.from({ length: 20 }, () => nubis.request('GET', '/v1.3/account/token_list', { token: account.token })),
      );
      const limited = results.filter((result) => result.status === 429);
      assert.ok(limited.length >= 1, `${limited.length} of 20 refused`);
      for (const result of results) assert.ok(result.status === 200 || result.status === 429);
      assertLimited(limited[0]!, 3, 'token budget');
      // The budget is the token's, not the address's: public operations still answer.
      assert.equal((await nubis.request('GET', '/v1.3/region/list')).status, 200);
    } finally {
      await nubis.close();
    }
  });
});

describe('instances and the budget store', () => {
  test(
    testDb === 'postgres'
      ? 'with REDIS_URL, two instances sharing REDIS_PREFIX share one budget'
      : 'without REDIS_URL, each instance counts in its own memory',
    async () => {
      const env = {
        RATE_REGISTER_PER_MINUTE: '3',
        REDIS_PREFIX: `nubis-test:shared-${randomBytes(6).toString('hex')}:`,
      };
      // Both start at once; if one fails, the other is closed too (or the test process would hang).
      const started = await Promise.allSettled([startTestInstance(env), startTestInstance(env)]);
      const failed = started.find((result) => result.status === 'rejected');
      if (failed) {
        for (const result of started) if (result.status === 'fulfilled') await result.value.close();
        throw failed.reason;
      }
      const [a, b] = started.map((result) => (result as PromiseFulfilledResult<TestInstance>).value) as [
        TestInstance,
        TestInstance,
      ];
      try {
        assert.equal((await a.request('POST', '/v1.3/account/register', { body: registerBody() })).status, 201);
        assert.equal((await a.request('POST', '/v1.3/account/register', { body: registerBody() })).status, 201);
        assert.equal((await b.request('POST', '/v1.3/account/register', { body: registerBody() })).status, 201);
        const fourth = await b.request('POST', '/v1.3/account/register', { body: registerBody() });
        if (testDb === 'postgres') {
          assert.equal(a.config.redisUrl, b.config.redisUrl);
          assertLimited(fourth, 3, 'fourth registration across instances');
        } else {
          assert.equal(b.config.redisUrl, null);
          assert.equal(fourth.status, 201);
        }
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    },
  );
});

describe('Redis out of reach', () => {
  test('the server still starts and answers, counting budgets in memory', async () => {
    const nubis = await startTestInstance({ REDIS_URL: 'redis://127.0.0.1:1', RATE_REGISTER_PER_MINUTE: '1' });
    try {
      assert.equal((await nubis.request('POST', '/v1.3/account/register', { body: registerBody() })).status, 201);
      assertLimited(
        await nubis.request('POST', '/v1.3/account/register', { body: registerBody() }),
        1,
        'second registration',
      );
      assert.equal((await nubis.request('GET', '/readyz')).status, 200);
    } finally {
      await nubis.close();
    }
  });
});

describe('the budgets in Redis', () => {
  test('an authenticated request counts its budgets and checks its actor in one Redis command', {
    skip: testDb !== 'postgres' && 'Redis is configured on the PostgreSQL stage',
  }, async () => {
    const nubis = await startTestInstance();
    const { Redis } = await import('ioredis');
    // MONITOR takes a connection of its own; the marker is sent on another.
    const monitor = await new Redis(nubis.config.redisUrl!, { lazyConnect: true }).monitor();
    const marker = new Redis(nubis.config.redisUrl!);
    try {
      const prefix = nubis.config.redisPrefix;
      const account = await createAccount(nubis);
      const commands: string[][] = [];
      let markerSeen: () => void = () => {};
      const markerArrived = new Promise<void>((resolve) => {
        markerSeen = resolve;
      });
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        // What a script runs shows too, from "lua": only the commands clients sent count here.
        if (source === 'lua') return;
        if (args.includes(`${prefix}marker`)) markerSeen();
        else if (args.some((arg) => arg.startsWith(prefix))) commands.push(args);
      });
      const requests = 5;
      for (let i = 0; i < requests; i++)
        assert.equal((await nubis.request('GET', '/v1.3/account/info', { token: account.token })).status, 200);
      // MONITOR streams commands in the order Redis runs them: once the marker shows, every
      // command of the requests above has.
      await marker.get(`${prefix}marker`);
      await markerArrived;
      const keysOf = (command: string[]) => command.filter((arg) => arg.startsWith(prefix));
      const counting = commands.filter((command) => keysOf(command).some((key) => key.startsWith(`${prefix}rl:`)));
      // Each request's two budgets counted once, together.
      assert.equal(counting.length, requests, JSON.stringify(commands));
      for (const command of counting) {
        const keys = keysOf(command);
        assert.ok(
          keys.some((key) => key.startsWith(`${prefix}rl:token:`)),
          JSON.stringify(command),
        );
        assert.ok(
          keys.some((key) => key.startsWith(`${prefix}rl:accountInfo:`)),
          JSON.stringify(command),
        );
      }
      // A cached actor's check travels with them (the first request may look its actor up instead).
      const withCheck = counting.filter((command) => keysOf(command).includes(`${prefix}actors:${account.id}`));
      assert.ok(withCheck.length >= 1, JSON.stringify(commands));
    } finally {
      monitor.disconnect();
      marker.disconnect();
      await nubis.close();
    }
  });
});

describe('a count Redis fails', () => {
  test('is counted in memory instead: the budget holds and the request is not failed', async () => {
    const config = loadConfig({ RATE_REGISTER_PER_MINUTE: '2', LOG_LEVEL: 'silent' });
    let asked = 0;
    const refused: string[] = [];
    const limiters = createRateLimiters(
      config,
      {
        // Ready, but every count fails (the connection lost between the check and the answer).
        ready: () => true,
        round: {
          count: async () => {
            asked++;
            throw new Error('Connection is closed.');
          },
          read: async () => [],
        },
      },
      (name) => refused.push(name),
    );
    const first = await limiters.consume('register', '192.0.2.9');
    assert.deepEqual(first, { limit: 2, remaining: 1, resetSeconds: 60 });
    assert.equal((await limiters.consume('register', '192.0.2.9')).remaining, 0);
    await assert.rejects(Promise.resolve(limiters.consume('register', '192.0.2.9')), RateLimited);
    assert.equal(asked, 3, 'each count was asked of Redis first');
    assert.deepEqual(refused, ['register']);
  });
});
