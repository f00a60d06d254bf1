// Tokens: creation, listing (with the token shown again, decrypted with the server key),
// renaming, removal, and authentication of a presented token.

import type { Queryable } from '../db/database.ts';
import type { Actor, CachedActor, Platform } from '../platform/context.ts';
import { NotFound } from '../platform/errors.ts';
import { newToken } from '../platform/secrets.ts';
import { parseRef } from '../platform/ids.ts';
import { tokenRepository } from './token.repository.ts';
import { effectivePermissions, requirePermission } from '../accounts/permissions.ts';
import type { TokenRow } from './token.table.ts';

/** last_used is written at most this often per token: a write per request would halve read throughput. */
const lastUsedResolutionMs = 60_000;

/** A token of an account, shown in clear to its owner (the API layer shapes it for the wire). */
export interface Token {
  id: number;
  uuid: string;
  name: string;
  /** The bearer token itself, unsealed with the server key. */
  token: string;
  /** Clock ms. */
  createdAt: number;
  /** Clock ms of the last use, to `lastUsedResolutionMs`; null if never used. */
  lastUsedAt: number | null;
}

function rowToToken(ctx: Platform, row: TokenRow): Token {
  return {
    id: row.id,
    uuid: row.uuid,
    name: row.name,
    token: ctx.secrets.decrypt(row.sealed),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

/** Issues a new token for the account, inside the caller's transaction when given one. */
export async function issueToken(ctx: Platform, db: Queryable, accountId: number, name: string): Promise<Token> {
  const token = newToken(ctx.random);
  const row = await tokenRepository.insert(db, {
    uuid: ctx.random.uuid(),
    accountId,
    name,
    digest: ctx.secrets.tokenDigest(token),
    sealed: ctx.secrets.encrypt(token),
    createdAt: ctx.clock.now(),
  });
  return rowToToken(ctx, row);
}

/** The account's newest token in clear, or a new one when it has none (what login answers). */
export async function tokenForLogin(ctx: Platform, db: Queryable, accountId: number): Promise<string> {
  const newest = await tokenRepository.newestOfAccount(db, accountId);
  if (newest) return rowToToken(ctx, newest).token;
  return (await issueToken(ctx, db, accountId, 'login')).token;
}

export async function listTokens(ctx: Platform, actor: Actor): Promise<Token[]> {
  const rows = await tokenRepository.listByAccount(ctx.db, actor.accountId);
  return rows.map((row) => rowToToken(ctx, row));
}

/** Token changes need the `tokens` permission and an account that is not blocked; not activation. */
export async function createToken(ctx: Platform, actor: Actor, name: string): Promise<Token> {
  requirePermission(actor, 'tokens');
  return issueToken(ctx, ctx.db, actor.accountId, name);
}

async function findOwnedToken(ctx: Platform, actor: Actor, ref: string | number) {
  const parsed = parseRef(ref);
  const row = parsed ? await tokenRepository.findOwned(ctx.db, actor.accountId, parsed) : undefined;
  if (!row) throw new NotFound('token');
  return row;
}

export async function renameToken(ctx: Platform, actor: Actor, ref: string, name: string): Promise<void> {
  requirePermission(actor, 'tokens');
  const row = await findOwnedToken(ctx, actor, ref);
  await tokenRepository.rename(ctx.db, row.id, name);
}

/** Removes a token; removing the very token of the call is allowed and logs the caller out. */
export async function removeToken(ctx: Platform, actor: Actor, ref: string | number): Promise<void> {
  requirePermission(actor, 'tokens');
  const row = await findOwnedToken(ctx, actor, ref);
  // Of several concurrent removes exactly one deletes the row; the others find it gone: 404.
  if (!(await tokenRepository.remove(ctx.db, row.id))) throw new NotFound('token');
  await invalidateActors(ctx, actor.accountId);
}

/** The digest a presented token is looked up by, or null when it cannot be a token at all. */
export function tokenDigestOf(ctx: Platform, token: string): string | null {
  return token.length < 16 || token.length > 256 ? null : ctx.secrets.tokenDigest(token);
}

/** The actor a presented token stands for, or null when it is unknown. */
export async function authenticate(ctx: Platform, token: string): Promise<Actor | null> {
  const digest = tokenDigestOf(ctx, token);
  return digest ? authenticateDigest(ctx, digest) : null;
}

/**
 * The actor of a token digest (tokenDigestOf), from the actor cache while the account's
 * generation is unchanged (actor-cache.ts), else from the database. On a cached actor the
 * generation check is asked for before this returns a promise, so the caller's Redis commands
 * of the same tick share its round trip. Answers at once, without a promise, when the cache can
 * (an in-process generation, nothing to write): authentication runs on every request.
 */
export function authenticateDigest(ctx: Platform, digest: string): Actor | null | Promise<Actor | null> {
  const cache = ctx.actors;
  const entry = cache.peek(digest, Date.now());
  if (!entry) {
    // One look-up of a token at a time: when its entry ends (each second), every request of the
    // token in flight would miss and read the database twice (a herd of them on PostgreSQL).
    // The others wait for it and then take its entry like every cached one: checked against the
    // account's generation as read after they arrived, so a revocation is seen exactly as on a hit.
    const running = cache.lookingUp(digest);
    if (running !== undefined) {
      const after = () => fromCache(ctx, digest, cache.peek(digest, Date.now()));
      return running.then(after, after);
    }
    return cache.lookUp(digest, lookUpActor(ctx, digest));
  }
  return fromCache(ctx, digest, entry);
}

/** The cached actor of the digest, checked against the current generation; a look-up when there is none. */
function fromCache(
  ctx: Platform,
  digest: string,
  entry: CachedActor | undefined,
): Actor | null | Promise<Actor | null> {
  // None after waiting: nothing could be cached (an unknown token, no cache now): its own look-up.
  if (!entry) return lookUpActor(ctx, digest);
  const current = ctx.actors.generation(entry.actor.accountId);
  if (current instanceof Promise) return current.then((generation) => cachedActor(ctx, digest, entry, generation));
  return cachedActor(ctx, digest, entry, current);
}

/** The cached entry's actor while its generation is the current one, else a fresh look-up. */
function cachedActor(
  ctx: Platform,
  digest: string,
  entry: CachedActor,
  generation: string | null,
): Actor | null | Promise<Actor | null> {
  if (generation !== entry.generation) {
    ctx.actors.forget(digest);
    return lookUpActor(ctx, digest);
  }
  const touched = touchIfDue(ctx, entry.actor.tokenId, entry);
  return touched === undefined ? entry.actor : touched.then(() => entry.actor);
}

async function lookUpActor(ctx: Platform, digest: string): Promise<Actor | null> {
  const cache = ctx.actors;
  const found = await tokenRepository.findForAuth(ctx.db, digest);
  if (!found) return null;
  const actor: Actor = {
    accountId: found.accountId,
    accountUuid: found.accountUuid,
    tokenId: found.tokenId,
    activated: found.activated,
    blocked: found.blocked,
    permissions: effectivePermissions(found.permissions),
  };
  const touched = { lastUsedAt: found.lastUsedAt };
  await touchIfDue(ctx, actor.tokenId, touched);
  // Cached only as read after the generation: a change that commits before this read bumped it
  // already (so the entry is current), one that commits after bumps it later (so the entry fails
  // its next check). The first read only said which account's generation to ask for.
  const cachedAt = Date.now();
  const generation = await cache.generation(actor.accountId);
  if (generation !== null) {
    const again = await tokenRepository.findForAuth(ctx.db, digest);
    if (again && again.accountId === actor.accountId)
      cache.store(digest, {
        actor: {
          ...actor,
          activated: again.activated,
          blocked: again.blocked,
          permissions: effectivePermissions(again.permissions),
        },
        generation,
        cachedAt,
        lastUsedAt: touched.lastUsedAt,
      });
  }
  return actor;
}

/**
 * Writes the token's last_used_at when the stored one is a minute old or more (a write per request
 * would halve throughput); undefined when nothing is due.
 */
function touchIfDue(ctx: Platform, tokenId: number, seen: { lastUsedAt: number | null }): Promise<unknown> | undefined {
  const now = ctx.clock.now();
  if (seen.lastUsedAt !== null && Math.abs(now - seen.lastUsedAt) < lastUsedResolutionMs) return undefined;
  seen.lastUsedAt = now;
  return tokenRepository.touch(ctx.db, tokenId, now);
}

/**
 * Call after a change to what a token stands for commits (a token removed; an account blocked,
 * activated or given other permissions; every account, when null): see actor-cache.ts.
 */
export async function invalidateActors(ctx: Platform, accountId: number | null): Promise<void> {
  try {
    await (accountId === null ? ctx.actors.bumpAll() : ctx.actors.bump(accountId));
  } catch (error) {
    // Committed already; the other instances' entries end within the cache's staleness bound.
    ctx.log.warn({ err: (error as Error).message, accountId }, 'could not share an actor invalidation');
  }
}
