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

/** A new account as register decides it; newAccountRow makes its row. */
export interface NewAccount {
  uuid: string;
  /** Lower-cased. */
  email: string;
  passwordHash: string;
  firstname: string;
  lastname: string;
  /** Upper-cased ISO 3166 code. */
  country: string;
  activated: boolean;
  /** The stored form of the activation uuid mailed (account.service.ts's activationDigest). */
  activationDigest: string;
  serversLimit: number;
  /** When it registered, which is also its last change and its first login. */
  createdAt: number;
}

/** The one mapping of a new account to its row; the columns it leaves out take their defaults. */
function newAccountRow(account: NewAccount): NewAccountRow {
  return {
    uuid: account.uuid,
    email: account.email,
    password_hash: account.passwordHash,
    firstname: account.firstname,
    lastname: account.lastname,
    country: account.country,
    activated: account.activated ? 1 : 0,
    activation_uuid: account.activationDigest,
    servers_limit: account.serversLimit,
    created_at: account.createdAt,
    updated_at: account.createdAt,
    last_login_at: account.createdAt,
  };
}

/** What changes of an account (the customer's update, a login, activation, the operator's patch). */
export interface AccountChanges {
  updatedAt?: number;
  lastLoginAt?: number;
  firstname?: string;
  lastname?: string;
  country?: string;
  darkMode?: boolean;
  email?: string;
  passwordHash?: string;
  /** A pending reset's temporary password (its hash) and when it stops working; null ends the reset. */
  tempPassword?: { hash: string; expiresAt: number } | null;
  activated?: boolean;
  smtp?: boolean;
  /** The account's own blocked ports as stored (port-policy.ts's storedPorts); null: the deployment's default. */
  blockedPorts?: string | null;
  blocked?: boolean;
  serversLimit?: number;
  /** The permission flags as stored (JSON). */
  permissions?: string;
}

/** The one mapping of an account's changes to the columns they set. */
function accountChangesRow(changes: AccountChanges): AccountUpdate {
  const row: AccountUpdate = {};
  if (changes.updatedAt !== undefined) row.updated_at = changes.updatedAt;
  if (changes.lastLoginAt !== undefined) row.last_login_at = changes.lastLoginAt;
  if (changes.firstname !== undefined) row.firstname = changes.firstname;
  if (changes.lastname !== undefined) row.lastname = changes.lastname;
  if (changes.country !== undefined) row.country = changes.country;
  if (changes.darkMode !== undefined) row.dark_mode = changes.darkMode ? 1 : 0;
  if (changes.email !== undefined) row.email = changes.email;
  if (changes.passwordHash !== undefined) row.password_hash = changes.passwordHash;
  if (changes.tempPassword !== undefined) {
    row.temp_password_hash = changes.tempPassword?.hash ?? null;
    row.temp_password_expires_at = changes.tempPassword?.expiresAt ?? null;
  }
  if (changes.activated !== undefined) row.activated = changes.activated ? 1 : 0;
  if (changes.smtp !== undefined) row.smtp = changes.smtp ? 1 : 0;
  if (changes.blockedPorts !== undefined) row.blocked_ports = changes.blockedPorts;
  if (changes.blocked !== undefined) row.blocked = changes.blocked ? 1 : 0;
  if (changes.serversLimit !== undefined) row.servers_limit = changes.serversLimit;
  if (changes.permissions !== undefined) row.permissions = changes.permissions;
  return row;
}

/** A register or login attempt, as the account's activity log keeps it. */
export interface Attempt {
  /** Null for an e-mail that has no account. */
  accountId: number | null;
  email: string;
  action: 'register' | 'login';
  status: string;
  ip: string;
  at: number;
}

/** The one mapping of an attempt to its activity row. */
function attemptRow(attempt: Attempt): NewAccountActivityRow {
  return {
    account_id: attempt.accountId,
    email: attempt.email,
    action: attempt.action,
    status: attempt.status,
    ip_address: attempt.ip,
    created_at: attempt.at,
  };
}

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

  insert(db: Queryable, account: NewAccount) {
    return db.insertInto('accounts').values(newAccountRow(account)).returning(['id', 'uuid']).executeTakeFirstOrThrow();
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

  update(db: Queryable, id: number, changes: AccountChanges) {
    return db.updateTable('accounts').set(accountChangesRow(changes)).where('id', '=', id).execute();
  },

  list(db: Queryable, email: string | undefined) {
    let query = db.selectFrom('accounts').selectAll().orderBy('id').limit(1000);
    if (email) query = query.where('email', '=', email.toLowerCase());
    return query.execute();
  },

  logActivity(db: Queryable, attempt: Attempt) {
    return db.insertInto('account_activity').values(attemptRow(attempt)).execute();
  },

  /** The newest entries of the account's activity log (ACTIVITY_SHOWN of them). */
  recentActivity(db: Queryable, accountId: number) {
    return recentActivity.all(db, accountId);
  },
};
