// Authentication without a query: each instance keeps the actors of recently presented tokens,
// and checks on every request that nothing about the account changed since (a token removed,
// the account blocked, activated or given other permissions). Every such change bumps the
// account's generation after it commits (invalidateActors); a cached actor is used only while
// the generation it was cached under is still the current one.
//
// Where the generation lives decides who sees a bump at once:
// - Redis (REDIS_URL): shared by every instance. The check reads it in the same Redis command as
//   the request's rate-limit counts (platform/redis-round.ts), so a token removed through one
//   instance is refused by every other from the next request on.
// - In process (SQLite without Redis): one instance owns the database, so its own count is exact.
// - PostgreSQL without Redis: instances share nothing fast, so nothing is cached.
// Whatever happens to Redis, an entry lives at most `maxAgeMs` (1 s): the bound on staleness when
// a bump is lost (an instance that cannot reach Redis while the others can). While Redis is
// unreachable the cache is not used, and it is emptied when Redis comes back (its counts may
// have been lost with it). While an entry is looked up in the database, the token's other
// requests wait for that look-up and check its entry as they would any (token.service.ts).

import type { Redis } from 'ioredis';
import type { Actors, CachedActor } from '../platform/context.ts';
import type { RedisRound } from '../platform/redis-round.ts';

/** How long a cached actor may be used at most, checks passing or not: the staleness bound. */
export const actorCacheMaxAgeMs = 1_000;

type Entry = CachedActor;

/** The shared generations, in Redis. */
export interface SharedGenerations {
  /** The account's current generation (with every account's); rejects when Redis cannot answer. */
  read(accountId: number): Promise<string>;
  bump(accountId: number): Promise<void>;
  /** Bumps every account's generation at once (a reset of all data). */
  bumpAll(): Promise<void>;
}

/** `round`: the request's one Redis command, which the read joins; `redis` for the bumps. */
export function redisGenerations(redis: Redis, round: RedisRound, prefix: string): SharedGenerations {
  const key = (accountId: number) => `${prefix}actors:${accountId}`;
  const all = `${prefix}actors:all`;
  return {
    // Not async: the read must be asked for at the call, in the same tick as the request's counts.
    read: (accountId) => round.read([all, key(accountId)]).then(([every, one]) => `${every ?? 0}:${one ?? 0}`),
    bump: async (accountId) => {
      await redis.incr(key(accountId));
    },
    bumpAll: async () => {
      await redis.incr(all);
    },
  };
}

export class ActorCache implements Actors {
  readonly #entries = new Map<string, Entry>();
  /** Database look-ups under way, by digest: one per token at a time (see authenticateDigest). */
  readonly #lookUps = new Map<string, Promise<unknown>>();
  readonly #local = new Map<number, number>();
  #localAll = 0;
  readonly #maxEntries: number;
  #shared: SharedGenerations | null = null;
  #enabled: boolean;

  /** `enabled`: whether this process may cache before a shared store is attached (SQLite: it owns the data). */
  constructor(enabled: boolean, maxEntries = 10_000) {
    this.#enabled = enabled;
    this.#maxEntries = maxEntries;
  }

  /** Shares generations through Redis from now on (every instance must), and empties the cache. */
  share(shared: SharedGenerations): void {
    this.#shared = shared;
    this.#enabled = true;
    this.clear();
  }

  clear(): void {
    this.#entries.clear();
  }

  /**
   * The account's current generation, asked for at once (so it travels with the other Redis
   * commands of the same tick); null when no cache may be trusted now (none, or Redis unreachable).
   */
  generation(accountId: number): Promise<string | null> | string | null {
    if (!this.#enabled) return null;
    if (this.#shared) return this.#shared.read(accountId).catch(() => null);
    return `${this.#localAll}:${this.#local.get(accountId) ?? 0}`;
  }

  /** A cached entry younger than the staleness bound, without checking its generation. */
  peek(digest: string, now: number): Entry | undefined {
    const entry = this.#entries.get(digest);
    if (entry && now - entry.cachedAt >= actorCacheMaxAgeMs) {
      this.#entries.delete(digest);
      return undefined;
    }
    return entry;
  }

  store(digest: string, entry: Entry): void {
    if (!this.#enabled) return;
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.delete(digest);
    this.#entries.set(digest, entry);
  }

  lookingUp(digest: string): Promise<unknown> | undefined {
    return this.#lookUps.get(digest);
  }

  lookUp<T>(digest: string, running: Promise<T>): Promise<T> {
    if (!this.#enabled) return running;
    this.#lookUps.set(digest, running);
    const done = () => {
      if (this.#lookUps.get(digest) === running) this.#lookUps.delete(digest);
    };
    running.then(done, done);
    return running;
  }

  forget(digest: string): void {
    this.#entries.delete(digest);
  }

  /** Called after a change commits: every cached actor of the account is stale from now on. */
  async bump(accountId: number): Promise<void> {
    this.#local.set(accountId, (this.#local.get(accountId) ?? 0) + 1);
    for (const [digest, entry] of this.#entries) if (entry.actor.accountId === accountId) this.#entries.delete(digest);
    await this.#shared?.bump(accountId);
  }

  /** Called after every account may have changed at once (the operator's reset). */
  async bumpAll(): Promise<void> {
    this.#localAll++;
    this.clear();
    await this.#shared?.bumpAll();
  }
}
