// Several reads that must agree with each other (a page and its total, sums and the items beside
// them) run in one read-only transaction: REPEATABLE READ on PostgreSQL gives them one snapshot;
// SQLite's transaction reads one snapshot of the WAL anyway.

import type { Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';

export function readSnapshot<T>(ctx: Platform, read: (trx: Tx) => Promise<T>): Promise<T> {
  let transaction = ctx.db.transaction();
  if (ctx.dialect === 'postgres')
    transaction = transaction.setIsolationLevel('repeatable read').setAccessMode('read only');
  return transaction.execute(read);
}
