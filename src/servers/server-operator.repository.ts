// The operator's queries on servers across every account: each with its owner's e-mail, listed
// by owner, region and shown power, or found by id or uuid (locked), and stopped outright.

import { sql } from 'kysely';
import type { DialectName, Queryable, Tx } from '../db/database.ts';
import type { Ref } from '../platform/ids.ts';
import { byRef } from '../db/by-ref.ts';
import { shownPowerSql } from './shown-power.repository.ts';

export interface OperatorServerFilter {
  accountId?: number;
  region?: number;
  after?: number;
  /** The shown power (power-state.ts) at `now`: running, stopped, or a transition. */
  power?: string;
  now: number;
  limit: number;
}

function withOwner(db: Queryable) {
  return db
    .selectFrom('servers')
    .innerJoin('accounts', 'accounts.id', 'servers.account_id')
    .selectAll('servers')
    .select('accounts.email as account_email');
}

export const serverOperatorRepository = {
  /** Servers by id, with their owner's e-mail. */
  list(db: Queryable, filter: OperatorServerFilter) {
    let select = withOwner(db).orderBy('servers.id').limit(filter.limit);
    if (filter.accountId !== undefined) select = select.where('servers.account_id', '=', filter.accountId);
    if (filter.region !== undefined) select = select.where('servers.region_id', '=', filter.region);
    if (filter.after !== undefined) select = select.where('servers.id', '>', filter.after);
    if (filter.power !== undefined) select = select.where(sql<boolean>`${shownPowerSql(filter.now)} = ${filter.power}`);
    return select.execute();
  },

  /** Any account's server with its owner's e-mail; with `lockOn` postgres, its row locked. */
  find(trx: Tx, ref: Ref, lockOn?: DialectName) {
    let select = withOwner(trx);
    select = select.where(byRef(ref, 'servers'));
    if (lockOn === 'postgres') select = select.forNoKeyUpdate('servers');
    return select.executeTakeFirst();
  },
};
