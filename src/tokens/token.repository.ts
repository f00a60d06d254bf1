// Queries on the tokens table.

import type { Queryable } from '../db/database.ts';
import type { Ref } from '../platform/ids.ts';
import { prepared } from '../db/prepared.ts';
import { byRef } from '../db/by-ref.ts';

// Authentication runs on every request: its queries are prepared once (see src/db/prepared.ts).
const findForAuth = prepared<
  [string],
  {
    token_id: number;
    last_used_at: number | null;
    account_id: number;
    account_uuid: string;
    activated: number;
    blocked: number;
    permissions: string;
  }
>(1, (db, digest) =>
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
  insert(
    db: Queryable,
    row: { uuid: string; account_id: number; name: string; digest: string; sealed: string; created_at: number },
  ) {
    return db
      .insertInto('tokens')
      .values(row)
      .returning(['id', 'uuid', 'name', 'created_at'])
      .executeTakeFirstOrThrow();
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
  findForAuth(db: Queryable, digest: string) {
    return findForAuth.first(db, digest);
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
