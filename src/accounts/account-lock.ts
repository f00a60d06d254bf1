// Serialises an account's billable changes (limits, balance checks) across connections and
// instances: a row lock on PostgreSQL. SQLite needs none: its one connection runs one
// transaction at a time.

import type { Tx } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';
import type { Platform } from '../platform/context.ts';

// Taken by every create: prepared, so PostgreSQL plans it once per connection.
const lockRow = prepared<[number], { id: number }>(1, (db, accountId) =>
  db.selectFrom('accounts').select('id').where('id', '=', accountId).forUpdate(),
);

export async function lockAccount(ctx: Platform, trx: Tx, accountId: number): Promise<void> {
  if (ctx.dialect === 'postgres') await lockRow.first(trx, accountId);
}
