// Queries on the tokens table.

import type { Queryable } from '../db/database.ts';
import type { Ref } from '../platform/ids.ts';
import { prepared } from '../db/prepared.ts';
import { byRef } from '../db/by-ref.ts';
import type { NewTokenRow, TokenRow } from './token.table.ts';

/** A new token of an account, stored only as its digest and its sealed form; newTokenRow makes its row. */
export interface NewToken {
  uuid: string;
  accountId: number;
  name: string;
  /** Its keyed hash, for look-up. */
  digest: string;
  /** Its encryption under the server key. */
  sealed: string;
  createdAt: number;
}

/** The one mapping of a new token to its row (never used yet). */
function newTokenRow(token: NewToken): Required<Omit<NewTokenRow, 'id' | 'last_used_at'>> {
  return {
    uuid: token.uuid,
    account_id: token.accountId,
    name: token.name,
    digest: token.digest,
    sealed: token.sealed,
    created_at: token.createdAt,
  };
}

/** What authentication needs of a token and its account. */
export interface TokenHolder {
  tokenId: number;
  lastUsedAt: number | null;
  accountId: number;
  accountUuid: string;
  activated: boolean;
  blocked: boolean;
  /** The account's stored permissions (accounts/permissions.ts reads them). */
  permissions: string;
}

interface TokenHolderRow {
  token_id: number;
  last_used_at: number | null;
  account_id: number;
  account_uuid: string;
  activated: number;
  blocked: number;
  permissions: string;
}

function rowToTokenHolder(row: TokenHolderRow): TokenHolder {
  return {
    tokenId: row.token_id,
    lastUsedAt: row.last_used_at,
    accountId: row.account_id,
    accountUuid: row.account_uuid,
    activated: row.activated === 1,
    blocked: row.blocked === 1,
    permissions: row.permissions,
  };
}

// Authentication runs on every request: its queries are prepared once (see src/db/prepared.ts).
const findForAuth = prepared<[string], TokenHolderRow>(1, (db, digest) =>
  db
    .selectFrom('tokens')
    .innerJoin('accounts', 'accounts.id', 'tokens.account_id')
    .select([
      'tokens.id as token_id',
      'tokens.last_used_at',
      'accounts.id as account_id',
      'accounts.uuid as account_uuid',
      'accounts.activated',
      'accounts.blocked',
      'accounts.permissions',
    ])
    .where('tokens.digest', '=', digest),
);

const touch = prepared<[number, number], never>(2, (db, at, tokenId) =>
  db.updateTable('tokens').set({ last_used_at: at }).where('id', '=', tokenId),
);

export const tokenRepository = {
  insert(db: Queryable, token: NewToken): Promise<TokenRow> {
    return db.insertInto('tokens').values(newTokenRow(token)).returningAll().executeTakeFirstOrThrow();
  },

  listByAccount(db: Queryable, accountId: number) {
    return db.selectFrom('tokens').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  },

  newestOfAccount(db: Queryable, accountId: number) {
    return db
      .selectFrom('tokens')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  },

  findOwned(db: Queryable, accountId: number, ref: Ref) {
    return db.selectFrom('tokens').selectAll().where('account_id', '=', accountId).where(byRef(ref)).executeTakeFirst();
  },

  /** The token's account, for authentication: one indexed look-up by digest, on every request. */
  async findForAuth(db: Queryable, digest: string): Promise<TokenHolder | undefined> {
    const row = await findForAuth.first(db, digest);
    return row && rowToTokenHolder(row);
  },

  touch(db: Queryable, tokenId: number, at: number) {
    return touch.run(db, at, tokenId);
  },

  rename(db: Queryable, tokenId: number, name: string) {
    return db.updateTable('tokens').set({ name }).where('id', '=', tokenId).execute();
  },

  /** Deletes the row; false when it was already gone (a concurrent remove won). */
  async remove(db: Queryable, tokenId: number): Promise<boolean> {
    const result = await db.deleteFrom('tokens').where('id', '=', tokenId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },
};
