// Queries on accounts and their activity log.

import type { Queryable } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';
import { ledgerItemColumns, type LedgerItemColumns } from '../billing/ledger.ts';
import type { AccountActivityRow, AccountRow, AccountUpdate, NewAccountRow } from './account.table.ts';

/** How many activity entries account info shows. */
export const ACTIVITY_SHOWN = 20;

// account/info runs these on every call: prepared once (src/db/prepared.ts).
const findById = prepared<[number], AccountRow>(1, (db, id) =>
  db.selectFrom('accounts').selectAll().where('id', '=', id),
);
/**
 * Everything account/info reads but the activity log, in one statement (one round trip, one
 * snapshot on PostgreSQL): the account row, once per unfinalised invoice item with that item's
 * columns (see billing/ledger.ts financeOf), and how many of its servers run now.
 */
const withFinance = prepared<[number, number, number, number], AccountRow & LedgerItemColumns & { running: number }>(
  4,
  (db, itemsAccountId, serversAccountId, now, accountId) =>
    db
      .selectFrom('accounts as a')
      .leftJoin('invoice_items as i', (join) =>
        join.on('i.account_id', '=', itemsAccountId).on('i.final_charge_micros', 'is', null),
      )
      .where('a.id', '=', accountId)
      .selectAll('a')
      .select(ledgerItemColumns)
      .select((eb) =>
        eb
          .selectFrom('servers')
          .select((s) => s.fn.countAll<number>().as('count'))
          .where('account_id', '=', serversAccountId)
          .where('power', '=', 'running')
          .where((w) => w.or([w('action', 'is', null), w('action_until', '<=', now)]))
          .as('running'),
      ),
);
const recentActivity = prepared<[number], Pick<AccountActivityRow, 'ip_address' | 'created_at' | 'action' | 'status'>>(
  1,
  (db, accountId) =>
    db
      .selectFrom('account_activity')
      .select(['ip_address', 'created_at', 'action', 'status'])
      .where('account_id', '=', accountId)
      .orderBy('id', 'desc')
      .limit(ACTIVITY_SHOWN),
);

export const accountRepository = {
  insert(db: Queryable, row: NewAccountRow) {
    return db.insertInto('accounts').values(row).returning(['id', 'uuid']).executeTakeFirstOrThrow();
  },

  findById(db: Queryable, id: number) {
    return findById.first(db, id);
  },

  /** The account row with its ledger rows and running servers (see withFinance); no row when it is unknown. */
  findWithFinance(db: Queryable, id: number, now: number) {
    return withFinance.all(db, id, id, now, id);
  },

  findByEmail(db: Queryable, email: string) {
    return db.selectFrom('accounts').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
  },

  findByUuid(db: Queryable, uuid: string) {
    return db.selectFrom('accounts').selectAll().where('uuid', '=', uuid.toLowerCase()).executeTakeFirst();
  },

  findByActivationUuid(db: Queryable, activationUuid: string) {
    return db
      .selectFrom('accounts')
      .selectAll()
      .where('activation_uuid', '=', activationUuid.toLowerCase())
      .executeTakeFirst();
  },

  update(db: Queryable, id: number, changes: AccountUpdate) {
    return db.updateTable('accounts').set(changes).where('id', '=', id).execute();
  },

  list(db: Queryable, email: string | undefined) {
    let query = db.selectFrom('accounts').selectAll().orderBy('id').limit(1000);
    if (email) query = query.where('email', '=', email.toLowerCase());
    return query.execute();
  },

  logActivity(
    db: Queryable,
    entry: {
      account_id: number | null;
      email: string;
      action: string;
      status: string;
      ip_address: string;
      created_at: number;
    },
  ) {
    return db.insertInto('account_activity').values(entry).execute();
  },

  /** The newest entries of the account's activity log (ACTIVITY_SHOWN of them). */
  recentActivity(db: Queryable, accountId: number) {
    return recentActivity.all(db, accountId);
  },
};
