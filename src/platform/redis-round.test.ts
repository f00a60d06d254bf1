// The request's one Redis command (redis-round.ts) against a real Redis: what several callers
// ask in one tick goes out as one command and each gets its own answer; a window counts from
// its first hit, ends after its duration and continues a count already in its key (as
// rate-limiter-flexible left it: a rolling upgrade keeps each budget). Redis is configured on the
// PostgreSQL stage (test/support/instance.ts), so the file runs there.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { testDb } from '../../test/support/instance.ts';
import { redisRound, type RedisRound } from './redis-round.ts';

const skip = testDb !== 'postgres' && 'Redis is configured on the PostgreSQL stage';

describe('one Redis command a tick', { skip }, () => {
  let redis: Redis;
  let round: RedisRound;
  const prefix = `nubis-test:round-${randomBytes(6).toString('hex')}:`;
  before(() => {
    redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
    round = redisRound(redis);
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  test('what several callers ask in one tick is one command, each caller answered its own', async () => {
    await redis.set(`${prefix}a`, 'first');
    await redis.set(`${prefix}c`, 'third');
    const sent: string[] = [];
    const send = redis.sendCommand.bind(redis);
    redis.sendCommand = (command, ...rest) => {
      sent.push(command.name);
      return send(command, ...rest);
    };
    try {
      const asked = [
        round.count(`${prefix}w1`, 60_000),
        round.read([`${prefix}a`, `${prefix}b`]),
        round.count(`${prefix}w1`, 60_000),
        round.count(`${prefix}w2`, 1_000),
        round.read([`${prefix}c`]),
      ] as const;
      const [one, read, two, other, third] = await Promise.all(asked);
      assert.equal(sent.length, 1, `commands sent: ${sent.join(', ')}`);
      assert.equal(one.consumed, 1);
      assert.equal(two.consumed, 2);
      assert.equal(other.consumed, 1);
      assert.ok(one.msLeft > 59_000 && one.msLeft <= 60_000, `${one.msLeft} ms left`);
      assert.ok(other.msLeft > 0 && other.msLeft <= 1_000, `${other.msLeft} ms left`);
      assert.deepEqual(read, ['first', null]);
      assert.deepEqual(third, ['third']);
    } finally {
      redis.sendCommand = send;
    }
    // The next tick is a command of its own, and the window counts on.
    assert.equal((await round.count(`${prefix}w1`, 60_000)).consumed, 3);
  });

  test('a window ends after its duration and the next hit opens a new one', async () => {
    const key = `${prefix}short`;
    assert.equal((await round.count(key, 50)).consumed, 1);
    assert.equal((await round.count(key, 50)).consumed, 2);
    // Waits on Redis's own expiry of the key, not on a guess of how long it takes.
    while ((await redis.exists(key)) === 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const reopened = await round.count(key, 50);
    assert.equal(reopened.consumed, 1);
  });

  test("a count already in a window's key goes on, its end kept", async () => {
    const key = `${prefix}upgraded`;
    // As rate-limiter-flexible's Redis store left a window: the count, with the window's expiry.
    await redis.set(key, '7', 'PX', 30_000);
    const counted = await round.count(key, 60_000);
    assert.equal(counted.consumed, 8);
    assert.ok(counted.msLeft <= 30_000, `${counted.msLeft} ms left: the window's end moved`);
    // A key left without an expiry gets the window's duration rather than living forever.
    await redis.set(`${key}:forever`, '3');
    const kept = await round.count(`${key}:forever`, 60_000);
    assert.equal(kept.consumed, 4);
    assert.ok((await redis.pttl(`${key}:forever`)) > 0);
  });

  test('a failed command fails every caller of its tick', async () => {
    const broken = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    try {
      const failing = redisRound(broken);
      const outcomes = await Promise.allSettled([failing.count(`${prefix}x`, 1_000), failing.read([`${prefix}a`])]);
      assert.deepEqual(
        outcomes.map((outcome) => outcome.status),
        ['rejected', 'rejected'],
      );
    } finally {
      broken.disconnect();
    }
  });
});
