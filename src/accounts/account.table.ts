// Row types of the accounts table and its activity log.

import type { Generated, Selectable, Insertable, Updateable } from 'kysely';

export interface AccountTable {
  id: Generated<number>;
  uuid: string;
  /** Lower-cased; unique. */
  email: string;
  password_hash: string;
  /** scrypt hash of the temporary password mailed by account/reset, or null. */
  temp_password_hash: string | null;
  temp_password_expires_at: number | null;
  firstname: string;
  lastname: string;
  country: string;
  dark_mode: Generated<number>;
  account_type: Generated<string>;
  activated: Generated<number>;
  /** Random uuid mailed for activation; distinct from the public account uuid. */
  activation_uuid: string;
  smtp: Generated<number>;
  /** JSON {TCP: number[], UDP: number[]}: the account's own blocked ports; null: the deployment's default. */
  blocked_ports: string | null;
  blocked: Generated<number>;
  servers_limit: number;
  /** JSON object of permission flags. */
  permissions: Generated<string>;
  referrals_count: Generated<number>;
  referrals_amount_micros: Generated<number>;
  /** Credits and commit charges minus the final charges of closed invoice items (billing/settled.ts). */
  settled_micros: Generated<number>;
  /** When the out-of-funds sweep looks at the account next: 0 once its ledger changed, null when nothing is billed (billing/funds-due.ts). */
  funds_due_at: Generated<number | null>;
  /** How many transactions the account has: transaction/list's total, kept by every insert. */
  transaction_count: Generated<number>;
  /** How many invoice items the account has: invoice/list's total, kept by every insert. */
  invoice_item_count: Generated<number>;
  created_at: number;
  updated_at: number;
  last_login_at: number | null;
}

export type AccountRow = Selectable<AccountTable>;
export type NewAccountRow = Insertable<AccountTable>;
export type AccountUpdate = Updateable<AccountTable>;

export interface AccountActivityTable {
  id: Generated<number>;
  /** Null for an attempt on an e-mail that has no account. */
  account_id: number | null;
  email: string;
  action: string;
  status: string;
  ip_address: string;
  created_at: number;
}

export type AccountActivityRow = Selectable<AccountActivityTable>;
export type NewAccountActivityRow = Insertable<AccountActivityTable>;
