// Rate limits, counted in real time (never on the virtual clock): in memory by default (fixed
// windows counted here, answered without a promise: every authenticated request counts two),
// in Redis by rate-limiter-flexible when REDIS_URL is set so all instances share one budget.

import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { TooManyRequests } from '../platform/errors.ts';

// The classes used (with Redis only), each from its own file: the package's index loads every
// store it supports (about thirty modules, Mongo, DynamoDB, Prisma…). Its types are the index's.
const require = createRequire(import.meta.url);
type RateLimiterAbstract = Flexible.RateLimiterAbstract;
const flexible = () => ({
  RateLimiterMemory: require('rate-limiter-flexible/lib/RateLimiterMemory.js') as typeof Flexible.RateLimiterMemory,
  RateLimiterRes: require('rate-limiter-flexible/lib/RateLimiterRes.js') as typeof Flexible.RateLimiterRes,
  RateLimiterRedis: require('rate-limiter-flexible/lib/RateLimiterRedis.js') as typeof Flexible.RateLimiterRedis,
});

export type RateLimitName =
  | 'register'
  | 'login'
  | 'loginAddress'
  | 'activate'
  | 'reset'
  | 'accountInfo'
  | 'accountUpdate'
  | 'token';

interface Rule {
  points: number;
  durationSeconds: number;
}

function rules(config: Config): Record<RateLimitName, Rule> {
  return {
    register: { points: config.rateRegisterPerMinute, durationSeconds: 60 },
    login: { points: config.rateLoginPerMinute, durationSeconds: 60 },
    loginAddress: { points: config.rateLoginPerAddressPerMinute, durationSeconds: 60 },
    activate: { points: config.rateActivatePerMinute, durationSeconds: 60 },
    reset: { points: config.rateResetPerMinute, durationSeconds: 60 },
    accountInfo: { points: config.rateAccountInfoPerMinute, durationSeconds: 60 },
    accountUpdate: { points: config.rateAccountUpdatePerMinute, durationSeconds: 60 },
    token: { points: config.ratePerTokenPerSecond, durationSeconds: 1 },
  };
}

/** A spent budget: a 429 that also knows the budget's size, for the RateLimit-Limit header. */
export class RateLimited extends TooManyRequests {
  override name = 'RateLimited';
  readonly limit: number;
  constructor(limit: number, retryAfterSeconds: number) {
    super(retryAfterSeconds);
    this.limit = limit;
  }
}

export interface RateLimitOutcome {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export interface RateLimiters {
  /**
   * Counts one request against the named budget; throws (or rejects with) TooManyRequests when it
   * is spent. In memory it answers at once; with Redis, a promise.
   */
  consume(name: RateLimitName, key: string): RateLimitOutcome | Promise<RateLimitOutcome>;
}

/**
 * Fixed windows in memory, counted as rate-limiter-flexible's RateLimiterMemory counts them (a
 * window opens with a key's first request and lasts the rule's duration; a refused request counts
 * too), but answered at once. Ended windows are swept once a duration.
 */
class MemoryWindows {
  readonly #windows = new Map<string, { consumed: number; endsAt: number }>();
  readonly #durationMs: number;
  #sweepAt = 0;
  constructor(durationMs: number) {
    this.#durationMs = durationMs;
  }

  /** Counts one request; answers the window's count so far and the milliseconds until it ends. */
  count(key: string, now: number): { consumed: number; msBeforeNext: number } {
    if (now >= this.#sweepAt) {
      for (const [stale, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(stale);
      this.#sweepAt = now + this.#durationMs;
    }
    let window = this.#windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { consumed: 0, endsAt: now + this.#durationMs };
      this.#windows.set(key, window);
    }
    window.consumed++;
    return { consumed: window.consumed, msBeforeNext: window.endsAt - now };
  }
}

/** `onRefusal` hears of each request a budget refuses (the metrics count them). */
export function createRateLimiters(
  config: Config,
  redis: Redis | null,
  onRefusal: (name: RateLimitName) => void = () => {},
): RateLimiters {
  if (!redis) return memoryRateLimiters(config, onRefusal);
  const { RateLimiterMemory, RateLimiterRes, RateLimiterRedis } = flexible();
  const limiters = new Map<RateLimitName, { limiter: RateLimiterAbstract; rule: Rule }>();
  for (const [name, rule] of Object.entries(rules(config)) as [RateLimitName, Rule][]) {
    const options = {
      points: rule.points,
      duration: rule.durationSeconds,
      keyPrefix: `${config.redisPrefix}rl:${name}`,
    };
    // If Redis is out of reach, an in-memory budget stands in rather than failing every request.
    const limiter = new RateLimiterRedis({
      ...options,
      storeClient: redis,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(options),
    });
    limiters.set(name, { limiter, rule });
  }
  return {
    async consume(name, key) {
      const entry = limiters.get(name);
      if (!entry) throw new Error(`unknown rate limit ${name}`);
      try {
        const result = await entry.limiter.consume(key);
        return {
          limit: entry.rule.points,
          remaining: result.remainingPoints,
          resetSeconds: Math.ceil(result.msBeforeNext / 1000),
        };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          onRefusal(name);
          throw new RateLimited(entry.rule.points, Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
        }
        throw rejection;
      }
    },
  };
}

function memoryRateLimiters(config: Config, onRefusal: (name: RateLimitName) => void): RateLimiters {
  const budgets = new Map<RateLimitName, { windows: MemoryWindows; rule: Rule }>();
  for (const [name, rule] of Object.entries(rules(config)) as [RateLimitName, Rule][])
    budgets.set(name, { windows: new MemoryWindows(rule.durationSeconds * 1000), rule });
  return {
    consume(name, key) {
      const budget = budgets.get(name);
      if (!budget) throw new Error(`unknown rate limit ${name}`);
      const { consumed, msBeforeNext } = budget.windows.count(key, Date.now());
      const resetSeconds = Math.ceil(msBeforeNext / 1000);
      if (consumed > budget.rule.points) {
        onRefusal(name);
        throw new RateLimited(budget.rule.points, Math.max(1, resetSeconds));
      }
      return { limit: budget.rule.points, remaining: budget.rule.points - consumed, resetSeconds };
    },
  };
}
