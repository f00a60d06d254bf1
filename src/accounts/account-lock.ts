// The lock order, in one place (PostgreSQL; SQLite runs one transaction at a time and takes no
// row locks), so concurrent transactions never wait on each other in a circle:
//
//   1. the account row: lockAccount below
//   2. servers, several in id order
//   3. what hangs off a server or the account: floating IPs, VPCs and their members, snapshots,
//      invoice items; several rows of one kind in id order
//
// A transaction takes locks only downwards in this list. Every request that changes more than
// one row of an account takes (1) first, so an account's own requests queue here and never
// deadlock one another. Work with no request behind it (sweeps, the job runner) follows the same
// order: where it changes an account's money or power (out of funds, bandwidth overage) it waits
// for the account lock as a request does, so the change lands in the round it is due (the virtual
// clock's catch-up relies on that), and the overage power-off then for its one server; everything
// else it takes with SKIP LOCKED and leaves a held row to a later round.
//
// lockAccount's statement stays here rather than in a repository: it is the order this file documents.
//
// Every row lock is FOR NO KEY UPDATE, never FOR UPDATE. Inserting a row that references a locked
// one (a backup of a locked account, a VPC member of a locked server) takes FOR KEY SHARE on it
// for the foreign key check, which FOR UPDATE blocks and FOR NO KEY UPDATE does not: with FOR
// UPDATE, a sweep inserting a backup for a server it holds waited for the account a request held
// while that request waited for the server (issue 21). The one exception is the claim of a queued
// row no other row references (compute jobs, mails, scheduled events, expired backups): it takes
// FOR UPDATE SKIP LOCKED, the strength deleting the row needs, so nothing waits on it for a foreign
// key and the claim skips a held row. A deadlock or serialization failure that still happens is
// retried whole by src/db/transaction.ts.

import type { Tx } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';
import type { Platform } from '../platform/context.ts';

// Taken by every create: prepared, so PostgreSQL plans it once per connection.
const lockRow = prepared<[number], { id: number }>(1, (db, accountId) =>
  db.selectFrom('accounts').select('id').where('id', '=', accountId).forNoKeyUpdate(),
);

/** Step 1 of the lock order: the account's row, until the transaction ends. */
export async function lockAccount(ctx: Platform, trx: Tx, accountId: number): Promise<void> {
  if (ctx.dialect === 'postgres') await lockRow.first(trx, accountId);
}
