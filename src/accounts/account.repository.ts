// Queries on accounts and their activity log.

import type { Queryable } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';
import { type Compilable, sql } from 'kysely';
import { openItemsJson, openItemsOf } from '../billing/billing.repository.ts';
import { jsonTuples, objectsOf, ownColumns } from '../db/json-tuples.ts';
import { shownPowerSql } from '../servers/shown-power.repository.ts';
import type {
  AccountActivityRow,
  AccountRow,
  AccountUpdate,
  NewAccountActivityRow,
  NewAccountRow,
} from './account.table.ts';

/** How many activity entries account info shows. */
export const ACTIVITY_SHOWN = 20;

// account/info runs these on every call: prepared once (src/db/prepared.ts).
const findById = prepared<[number], AccountRow>(1, (db, id) =>
  db.selectFrom('accounts').selectAll().where('id', '=', id),
);
/** The account columns an Account object shows (not its password hashes or activation secret). */
const shownColumns = [
  'id',
  'uuid',
  'email',
  'firstname',
  'lastname',
  'country',
  'dark_mode',
  'account_type',
  'activated',
  'smtp',
  'blocked_ports',
  'servers_limit',
  'permissions',
  'referrals_count',
  'referrals_amount_micros',
  'settled_micros',
  'created_at',
  'last_login_at',
] as const satisfies readonly (keyof AccountRow)[];
export type ShownAccountRow = Pick<AccountRow, (typeof shownColumns)[number]>;
const shownAccountOf = objectsOf<ShownAccountRow>(shownColumns);

/** An activity entry as account/info shows it. */
export type ShownActivity = Pick<AccountActivityRow, 'ip_address' | 'created_at' | 'action' | 'status'>;
const activityColumns = ['id', 'ip_address', 'created_at', 'action', 'status'] as const;
const activityOf = objectsOf<ShownActivity & { id: number }>(activityColumns);

/**
 * Everything account/info reads, in one row of one statement (one round trip, one snapshot on
 * PostgreSQL): the account, its unfinalised invoice items and recent activity as JSON values (see
 * db/json-tuples.ts), and how many of its servers run now. The activity's limit is a literal:
 * bound as a parameter, SQLite's plan for the subquery costs ten times as much.
 */
type AccountInfoRow = {
  items: string | unknown[];
  activity: string | unknown[];
  running: number;
} & ({ account: string | unknown[] } | ShownAccountRow);

const accountInfoRow = prepared<[number, number], AccountInfoRow>(
  2,
  (db, accountId, now) =>
    db
      .selectFrom('accounts as a')
      .where('a.id', '=', accountId)
      .select(
        ownColumns(
          db,
          shownColumns.map((column) => `a.${column}`),
          'account',
        ),
      )
      .select(openItemsJson(db, accountId).as('items'))
      .select(
        jsonTuples(
          db,
          db
            .selectFrom('account_activity')
            .select(activityColumns)
            .where('account_id', '=', accountId)
            .orderBy('id', 'desc')
            .limit(sql.lit(ACTIVITY_SHOWN)),
          activityColumns,
        ).as('activity'),
      )
      .select((eb) =>
        eb
          .selectFrom('servers')
          .select((s) => s.fn.countAll<number>().as('count'))
          .where('account_id', '=', accountId)
          // Running as the server shows it (its engine's report and conditions), as the list does.
          .where(sql<boolean>`${shownPowerSql(now)} = 'running'`)
          .as('running'),
      ) as unknown as Compilable<AccountInfoRow>,
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
  /** Whether the database holds no account yet (a first run). */
  async none(db: Queryable): Promise<boolean> {
    return !(await db.selectFrom('accounts').select('id').limit(1).executeTakeFirst());
  },

  insert(db: Queryable, row: NewAccountRow) {
    return db.insertInto('accounts').values(row).returning(['id', 'uuid']).executeTakeFirstOrThrow();
  },

  findById(db: Queryable, id: number) {
    return findById.first(db, id);
  },

  /** What account/info shows of the account (see accountInfoRow); undefined when it is unknown. */
  async findForInfo(db: Queryable, id: number, now: number) {
    const row = await accountInfoRow.first(db, id, now);
    if (!row) return undefined;
    // On SQLite the row itself is the account (ownColumns; not copied: its other columns are never
    // shown); activity newest first (the aggregate keeps no order).
    return {
      account: 'account' in row ? shownAccountOf(row.account)[0]! : row,
      items: openItemsOf(row.items),
      activity: activityOf(row.activity).sort((x, y) => y.id - x.id),
      running: Number(row.running),
    };
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

  /** Whom a mail to the account goes to, and the name it greets. */
  addressee(db: Queryable, id: number) {
    return db.selectFrom('accounts').select(['email', 'firstname']).where('id', '=', id).executeTakeFirstOrThrow();
  },

  update(db: Queryable, id: number, changes: AccountUpdate) {
    return db.updateTable('accounts').set(changes).where('id', '=', id).execute();
  },

  list(db: Queryable, email: string | undefined) {
    let query = db.selectFrom('accounts').selectAll().orderBy('id').limit(1000);
    if (email) query = query.where('email', '=', email.toLowerCase());
    return query.execute();
  },

  logActivity(db: Queryable, entry: NewAccountActivityRow) {
    return db.insertInto('account_activity').values(entry).execute();
  },

  /** The newest entries of the account's activity log (ACTIVITY_SHOWN of them). */
  recentActivity(db: Queryable, accountId: number) {
    return recentActivity.all(db, accountId);
  },
};
