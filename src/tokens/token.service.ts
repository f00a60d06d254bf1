// Tokens: creation, listing (with the token shown again, decrypted with the server key),
// renaming, removal, and authentication of a presented token.

import type { Queryable } from '../db/database.ts';
import type { Actor, Platform } from '../platform/context.ts';
import { NotFound } from '../platform/errors.ts';
import { newToken } from '../platform/secrets.ts';
import { newUuid, parseRef } from '../platform/ids.ts';
import { isoOrNull, isoSeconds } from '../platform/clock.ts';
import { tokenRepository } from './token.repository.ts';
import { effectivePermissions, requirePermission } from '../accounts/permissions.ts';
import type { TokenRow } from './token.table.ts';

/** last_used is written at most this often per token: a write per request would halve read throughput. */
const lastUsedResolutionMs = 60_000;

export interface Token {
  id: number;
  uuid: string;
  name: string;
  auth_token: string;
  created: string;
  last_used: string | null;
}

export interface CreatedToken {
  uuid: string;
  name: string;
  token: string;
  created: string;
}

function rowToToken(ctx: Platform, row: TokenRow): Token {
  return {
    id: row.id,
    uuid: row.uuid,
    name: row.name,
    auth_token: ctx.secrets.decrypt(row.sealed),
    created: isoSeconds(row.created_at),
    last_used: isoOrNull(row.last_used_at),
  };
}

/** Issues a new token for the account, inside the caller's transaction when given one. */
export async function issueToken(ctx: Platform, db: Queryable, accountId: number, name: string): Promise<CreatedToken> {
  const token = newToken();
  const row = await tokenRepository.insert(db, {
    uuid: newUuid(),
    account_id: accountId,
    name,
    digest: ctx.secrets.tokenDigest(token),
    sealed: ctx.secrets.encrypt(token),
    created_at: ctx.clock.now(),
  });
  return { uuid: row.uuid, name: row.name, token, created: isoSeconds(row.created_at) };
}

/** The account's newest token in clear, or a new one when it has none (what login answers). */
export async function tokenForLogin(ctx: Platform, db: Queryable, accountId: number): Promise<string> {
  const newest = await tokenRepository.newestOfAccount(db, accountId);
  if (newest) return ctx.secrets.decrypt(newest.sealed);
  return (await issueToken(ctx, db, accountId, 'login')).token;
}

export async function listTokens(ctx: Platform, actor: Actor): Promise<Token[]> {
  const rows = await tokenRepository.listByAccount(ctx.db, actor.accountId);
  return rows.map((row) => rowToToken(ctx, row));
}

/** Token changes need the `tokens` permission and an account that is not blocked; not activation. */
export async function createToken(ctx: Platform, actor: Actor, name: string): Promise<CreatedToken> {
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
  await tokenRepository.remove(ctx.db, row.id);
}

/** The actor a presented token stands for, or null when it is unknown. */
export async function authenticate(ctx: Platform, token: string): Promise<Actor | null> {
  if (token.length < 16 || token.length > 256) return null;
  const found = await tokenRepository.findForAuth(ctx.db, ctx.secrets.tokenDigest(token));
  if (!found) return null;
  const now = ctx.clock.now();
  if (found.last_used_at === null || Math.abs(now - found.last_used_at) >= lastUsedResolutionMs) {
    await tokenRepository.touch(ctx.db, found.token_id, now);
  }
  return {
    accountId: found.account_id,
    accountUuid: found.account_uuid,
    tokenId: found.token_id,
    activated: found.activated === 1,
    blocked: found.blocked === 1,
    permissions: effectivePermissions(found.permissions),
  };
}
