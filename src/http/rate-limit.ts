// Rate limits, counted in real time (never on the virtual clock): in memory by default (fixed
// windows counted here, answered without a promise: every authenticated request counts two),
// in Redis when REDIS_URL is set so all instances share one budget: the same fixed windows, each
// a key counted by the request's one Redis command (platform/redis-round.ts), in memory while
// Redis is out of reach.

import type { Config } from '../config.ts';
import { TooManyRequests } from '../platform/errors.ts';
import type { RedisRound } from '../platform/redis-round.ts';

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
 * Fixed windows in memory, counted as the Redis windows are (a window opens with a key's first
 * request and lasts the rule's duration; a refused request counts too), answered at once. Ended
 * windows are swept once a duration.
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

/**
 * A count's outcome under its budget: the answer's RateLimit figures, or RateLimited (told to
 * `onRefusal`) when the count passed the budget. The same for a window in memory or in Redis.
 */
function outcomeOf(
  name: RateLimitName,
  rule: Rule,
  consumed: number,
  msLeft: number,
  onRefusal: (name: RateLimitName) => void,
): RateLimitOutcome {
  const resetSeconds = Math.ceil(msLeft / 1000);
  if (consumed > rule.points) {
    onRefusal(name);
    throw new RateLimited(rule.points, Math.max(1, resetSeconds));
  }
  return { limit: rule.points, remaining: rule.points - consumed, resetSeconds };
}

/**
 * `onRefusal` hears of each request a budget refuses (the metrics count them). With `shared`
 * (Redis), `ready` says whether it can answer now: while it cannot, and when a count fails, the
 * budgets are counted in this process's memory instead rather than failing every request.
 */
export function createRateLimiters(
  config: Config,
  shared: { round: RedisRound; ready: () => boolean } | null,
  onRefusal: (name: RateLimitName) => void = () => {},
): RateLimiters {
  const inMemory = memoryRateLimiters(config, onRefusal);
  if (!shared) return inMemory;
  const budgets = rules(config);
  return {
    consume(name, key) {
      const rule = budgets[name];
      if (!rule) throw new Error(`unknown rate limit ${name}`);
      if (!shared.ready()) return inMemory.consume(name, key);
      // The key rate-limiter-flexible gave the same window (it counted them before): during a
      // rolling upgrade, instances on either side of it share each budget.
      return shared.round.count(`${config.redisPrefix}rl:${name}:${key}`, rule.durationSeconds * 1000).then(
        ({ consumed, msLeft }) => outcomeOf(name, rule, consumed, msLeft, onRefusal),
        () => inMemory.consume(name, key),
      );
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
      return outcomeOf(name, budget.rule, consumed, msBeforeNext, onRefusal);
    },
  };
}
