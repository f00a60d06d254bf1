// Row types of the ledger: transactions (money in, and up-front commit charges), invoice
// items (metered resources) and the out-of-funds marker. Money is integer micro-dollars everywhere.

import type { Generated, Selectable } from 'kysely';

export interface TransactionTable {
  id: Generated<number>;
  account_id: number;
  ptype: string;
  pstatus: string;
  /** Positive for a credit, negative for a charge. */
  amount_micros: number;
  fee_micros: number;
  /** Tax rate in hundredths of a percent. */
  taxrate_bp: number;
  note: string | null;
  created_at: number;
  updated_at: number;
}

export type TransactionRow = Selectable<TransactionTable>;

export interface InvoiceItemTable {
  id: Generated<number>;
  account_id: number;
  resource_type: string;
  /** uuid of the billed resource (server, snapshot, floating IP, ...). */
  resource_uuid: string;
  description: string;
  amount_hr_micros: number;
  amount_mo_micros: number;
  created_at: number;
  removed_at: number | null;
  /** Hours that begin before this instant were paid up front (server create `commit`). */
  prepaid_until: number | null;
  /** What the item cost in total, written when it is removed; null while it is open. */
  final_charge_micros: number | null;
}

export type InvoiceItemRow = Selectable<InvoiceItemTable>;

/** One row per account that ran out of money; deleted when a credit brings the balance above zero. */
export interface AccountFundsTable {
  account_id: number;
  out_of_funds_since: number;
}
