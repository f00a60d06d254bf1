// Row types of the ledger: transactions (money in, and up-front commit charges) and
// invoice items (metered resources). Money is integer micro-dollars everywhere.

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
  /** Usage up to this instant was paid up front (server create `commit`). */
  prepaid_until: number | null;
}

export type InvoiceItemRow = Selectable<InvoiceItemTable>;
