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
  /** A bank transfer's reference, which the customer puts on the transfer. */
  reference: Generated<string | null>;
  /** The processor's id of the payment (a Stripe Checkout Session, a simulated checkout). */
  processor_ref: Generated<string | null>;
  /** The processor's id its refunds and disputes name (a Stripe PaymentIntent). */
  payment_ref: Generated<string | null>;
  /** The payment a refund or dispute adjusts. */
  parent_id: Generated<number | null>;
  /** When the amount entered the balance; null while pending, and for a failed payment. */
  settled_at: Generated<number | null>;
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

/** A processor event already acted on: a second delivery of the same id changes nothing. */
export interface PaymentEventTable {
  processor: string;
  event_id: string;
  type: string;
  received_at: number;
}

/** A monthly invoice document as issued: never rewritten. */
export interface InvoiceDocumentTable {
  id: Generated<number>;
  /** Gapless across the deployment (the settings row `invoice_document_number`). */
  number: number;
  account_id: number;
  /** The month, `YYYY-MM` (UTC). */
  period: string;
  period_start: number;
  period_end: number;
  usage_micros: number;
  payments_micros: number;
  tax_micros: number;
  opening_micros: number;
  closing_micros: number;
  /** The PDF, base64. */
  pdf: string;
  created_at: number;
}

export type InvoiceDocumentRow = Selectable<InvoiceDocumentTable>;
