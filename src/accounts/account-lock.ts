// Serialises an account's billable changes (limits, balance checks) across connections and
// instances: a row lock on PostgreSQL. SQLite needs none: its one connection runs one
// transaction at a time.

import { sql } from 'kysely';
import type { Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';

export async function lockAccount(ctx: Platform, trx: Tx, accountId: number): Promise<void> {
  if (ctx.dialect === 'postgres') await sql`select id from accounts where id = ${accountId} for update`.execute(trx);
}
