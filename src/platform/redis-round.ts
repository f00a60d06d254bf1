// What a request asks of Redis, sent as one command. An authenticated request counts its
// budgets (http/rate-limit.ts) and reads its account's actor generations (tokens/actor-cache.ts)
// in one tick; asked for separately they were three commands (two rate-limiter scripts and an
// MGET) sharing one round trip through ioredis's auto-pipelining, and the commands themselves
// cost more than the trip: ioredis's and the rate limiter's objects were a quarter of the
// bytes an account/info allocated (docs/benchmarks.md). Here everything asked for in one tick
// goes out as one script call when the tick ends, and each caller gets its own answer.

import type { Redis } from 'ioredis';

/** A fixed window's count after one more hit, and the milliseconds until the window ends. */
export interface WindowCount {
  consumed: number;
  msLeft: number;
}

export interface RedisRound {
  /**
   * Counts one hit in the fixed window at `key`: opened by its first hit, it lasts `durationMs`.
   * The key holds the count as an integer (as rate-limiter-flexible's Redis store keeps one).
   */
  count(key: string, durationMs: number): Promise<WindowCount>;
  /** The values at `keys`, null where there is none. */
  read(keys: readonly string[]): Promise<(string | null)[]>;
}

// KEYS: the windows' keys, then the keys read. ARGV: how many windows, then each one's duration
// in ms. Answers each window's count and time left, then each value read (false: none).
const roundScript = `
local windows = tonumber(ARGV[1])
local answer = {}
for i = 1, windows do
  local duration = ARGV[i + 1]
  redis.call('set', KEYS[i], 0, 'PX', duration, 'NX')
  local consumed = redis.call('incr', KEYS[i])
  local left = redis.call('pttl', KEYS[i])
  if left < 0 then
    redis.call('pexpire', KEYS[i], duration)
    left = tonumber(duration)
  end
  answer[2 * i - 1] = consumed
  answer[2 * i] = left
end
for i = windows + 1, #KEYS do
  answer[windows + i] = redis.call('get', KEYS[i])
end
return answer`;

interface RoundClient {
  nubisRound(...args: (string | number)[]): Promise<(number | string | null)[]>;
}

interface Asked {
  windows: { key: string; durationMs: number; settle: PromiseWithResolvers<WindowCount> }[];
  reads: { keys: readonly string[]; settle: PromiseWithResolvers<(string | null)[]> }[];
}

export function redisRound(redis: Redis): RedisRound {
  // EVALSHA, and EVAL once when Redis does not know the script (after a restart, say).
  redis.defineCommand('nubisRound', { lua: roundScript });
  const client = redis as unknown as RoundClient;
  let asked: Asked | null = null;

  function send(): void {
    const round = asked!;
    asked = null;
    const keys: string[] = [];
    const durations: number[] = [];
    for (const window of round.windows) {
      keys.push(window.key);
      durations.push(window.durationMs);
    }
    for (const read of round.reads) keys.push(...read.keys);
    client.nubisRound(keys.length, ...keys, round.windows.length, ...durations).then(
      (answer) => {
        let at = 0;
        for (const window of round.windows) {
          window.settle.resolve({ consumed: Number(answer[at]), msLeft: Number(answer[at + 1]) });
          at += 2;
        }
        for (const read of round.reads) {
          const values = answer.slice(at, at + read.keys.length) as (string | null)[];
          at += read.keys.length;
          read.settle.resolve(values);
        }
      },
      (error: unknown) => {
        for (const window of round.windows) window.settle.reject(error);
        for (const read of round.reads) read.settle.reject(error);
      },
    );
  }

  /** This tick's round, sent when the tick ends. */
  function current(): Asked {
    if (!asked) {
      asked = { windows: [], reads: [] };
      process.nextTick(send);
    }
    return asked;
  }

  return {
    count(key, durationMs) {
      const settle = Promise.withResolvers<WindowCount>();
      current().windows.push({ key, durationMs, settle });
      return settle.promise;
    },
    read(keys) {
      const settle = Promise.withResolvers<(string | null)[]>();
      current().reads.push({ keys, settle });
      return settle.promise;
    },
  };
}
