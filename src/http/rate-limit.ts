// Rate limits, counted in real time (never on the virtual clock) by rate-limiter-flexible:
// in memory by default, in Redis when REDIS_URL is set so all instances share one budget.

import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { TooManyRequests } from '../platform/errors.ts';

// The classes used, each from its own file: the package's index loads every store it supports
// (about thirty modules, Mongo, DynamoDB, Prisma…) at every start. Its types are the index's.
const require = createRequire(import.meta.url);
const RateLimiterMemory =
  require('rate-limiter-flexible/lib/RateLimiterMemory.js') as typeof Flexible.RateLimiterMemory;
const RateLimiterRes = require('rate-limiter-flexible/lib/RateLimiterRes.js') as typeof Flexible.RateLimiterRes;
type RateLimiterAbstract = Flexible.RateLimiterAbstract;
/** Only with Redis. */
const redisLimiter = () => require('rate-limiter-flexible/lib/RateLimiterRedis.js') as typeof Flexible.RateLimiterRedis;

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
  /** Counts one request against the named budget; throws TooManyRequests when it is spent. */
  consume(name: RateLimitName, key: string): Promise<RateLimitOutcome>;
}

/** `onRefusal` hears of each request a budget refuses (the metrics count them). */
export function createRateLimiters(
  config: Config,
  redis: Redis | null,
  onRefusal: (name: RateLimitName) => void = () => {},
): RateLimiters {
  const limiters = new Map<RateLimitName, { limiter: RateLimiterAbstract; rule: Rule }>();
  for (const [name, rule] of Object.entries(rules(config)) as [RateLimitName, Rule][]) {
    const options = {
      points: rule.points,
      duration: rule.durationSeconds,
      keyPrefix: `${config.redisPrefix}rl:${name}`,
    };
    // If Redis is out of reach, an in-memory budget stands in rather than failing every request.
    const limiter = redis
      ? new (redisLimiter())({
          ...options,
          storeClient: redis,
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory(options),
        })
      : new RateLimiterMemory(options);
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
