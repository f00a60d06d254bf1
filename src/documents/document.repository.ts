// Queries on invoice documents: the issued ones (listed, their PDFs), the accounts whose month
// still needs one, the gapless number counter, and what a month held for an account (its settled
// transactions and the invoice items billed in it).

import { type Insertable, sql } from 'kysely';
import type { Queryable, Tx } from '../db/database.ts';
import type { InvoiceDocumentRow, InvoiceDocumentTable } from '../billing/billing.table.ts';
import type { MonthFigures } from './document-text.ts';

/** A calendar month (UTC): [start, end) in clock ms and its name, YYYY-MM. */
export interface Month {
  start: number;
  end: number;
  period: string;
}

/** A document as issuing decides it: its number, whose and which month, its figures, its PDF. */
export interface NewDocument {
  number: number;
  accountId: number;
  month: Month;
  figures: Pick<MonthFigures, 'usage' | 'paymentsNet' | 'tax' | 'opening' | 'closing'>;
  pdf: Buffer;
  issuedAt: number;
}

/** The one mapping of a new document to its row (the PDF kept as base64). */
function newDocumentRow(document: NewDocument): Required<Omit<Insertable<InvoiceDocumentTable>, 'id'>> {
  return {
    number: document.number,
    account_id: document.accountId,
    period: document.month.period,
    period_start: document.month.start,
    period_end: document.month.end,
    usage_micros: document.figures.usage,
    payments_micros: document.figures.paymentsNet,
    tax_micros: document.figures.tax,
    opening_micros: document.figures.opening,
    closing_micros: document.figures.closing,
    pdf: document.pdf.toString('base64'),
    created_at: document.issuedAt,
  };
}

/** Who a document is made out to. */
export interface Customer {
  accountId: number;
  email: string;
  firstname: string;
  lastname: string;
  country: string;
}

const listedColumns = [
  'id',
  'number',
  'account_id',
  'period',
  'period_start',
  'period_end',
  'usage_micros',
  'payments_micros',
  'tax_micros',
  'opening_micros',
  'closing_micros',
  'created_at',
] as const;

export type ListedDocumentRow = Pick<InvoiceDocumentRow, (typeof listedColumns)[number]>;

export const documentRepository = {
  /** The account's documents, newest first, without their PDFs. */
  list(db: Queryable, accountId: number): Promise<ListedDocumentRow[]> {
    return db
      .selectFrom('invoice_documents')
      .select(listedColumns)
      .where('account_id', '=', accountId)
      .orderBy('number', 'desc')
      .execute();
  },

  /** A document's PDF, of the account when `accountId` is given. */
  async pdf(
    db: Queryable,
    documentId: number,
    accountId: number | null,
  ): Promise<{ number: number; period: string; pdf: Buffer } | undefined> {
    let query = db.selectFrom('invoice_documents').select(['number', 'period', 'pdf']).where('id', '=', documentId);
    if (accountId !== null) query = query.where('account_id', '=', accountId);
    const row = await query.executeTakeFirst();
    return row && { number: Number(row.number), period: row.period, pdf: Buffer.from(row.pdf, 'base64') };
  },

  /** Accounts with activity in the month (a settled transaction, a billed item) and no document for it, by id. */
  accountsToIssue(db: Queryable, month: Month): Promise<{ id: number }[]> {
    return db
      .selectFrom('accounts')
      .select('id')
      .where((eb) =>
        eb.or([
          eb.exists(
            eb
              .selectFrom('transactions')
              .select('transactions.id')
              .whereRef('transactions.account_id', '=', 'accounts.id')
              .where('transactions.settled_at', '>=', month.start)
              .where('transactions.settled_at', '<', month.end),
          ),
          eb.exists(
            eb
              .selectFrom('invoice_items')
              .select('invoice_items.id')
              .whereRef('invoice_items.account_id', '=', 'accounts.id')
              .where('invoice_items.created_at', '<', month.end)
              .where((inner) =>
                inner.or([
                  inner('invoice_items.removed_at', 'is', null),
                  inner('invoice_items.removed_at', '>', month.start),
                ]),
              ),
          ),
        ]),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('invoice_documents')
              .select('invoice_documents.id')
              .whereRef('invoice_documents.account_id', '=', 'accounts.id')
              .where('invoice_documents.period', '=', month.period),
          ),
        ),
      )
      .orderBy('id')
      .execute();
  },

  /** Who a document is made out to. */
  async customer(db: Queryable, accountId: number): Promise<Customer | undefined> {
    const row = await db
      .selectFrom('accounts')
      .select(['id', 'email', 'firstname', 'lastname', 'country'])
      .where('id', '=', accountId)
      .executeTakeFirst();
    return (
      row && {
        accountId: row.id,
        email: row.email,
        firstname: row.firstname,
        lastname: row.lastname,
        country: row.country,
      }
    );
  },

  /**
   * The next document number: the counter row incremented in the caller's transaction (its row
   * lock on PostgreSQL issues one document at a time; a rollback takes the number back).
   */
  async nextNumber(trx: Tx, counterKey: string): Promise<number> {
    await trx
      .insertInto('settings')
      .values({ key: counterKey, value: '0' })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const counter = await trx
      .updateTable('settings')
      .set({ value: sql<string>`cast(cast(value as integer) + 1 as text)` })
      .where('key', '=', counterKey)
      .returning('value')
      .executeTakeFirstOrThrow();
    return Number(counter.value);
  },

  /** Inserts a document; undefined when the account has one for the period already. */
  insert(trx: Tx, document: NewDocument): Promise<{ id: number } | undefined> {
    return trx
      .insertInto('invoice_documents')
      .values(newDocumentRow(document))
      .onConflict((oc) => oc.columns(['account_id', 'period']).doNothing())
      .returning('id')
      .executeTakeFirst();
  },

  /** The sum of the account's transactions settled before `before`. */
  async settledBefore(db: Queryable, accountId: number, before: number): Promise<number> {
    const row = await db
      .selectFrom('transactions')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_micros'), eb.val(0)).as('total'))
      .where('account_id', '=', accountId)
      .where('settled_at', 'is not', null)
      .where('settled_at', '<', before)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  },

  /** The account's transactions settled in the month, in order. */
  settledIn(db: Queryable, accountId: number, month: Month) {
    return db
      .selectFrom('transactions')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('settled_at', '>=', month.start)
      .where('settled_at', '<', month.end)
      .orderBy('settled_at')
      .orderBy('id')
      .execute();
  },

  /** The account's invoice items billed in some part of the month, in order. */
  itemsIn(db: Queryable, accountId: number, month: Month) {
    return db
      .selectFrom('invoice_items')
      .select([
        'description',
        'resource_type',
        'created_at',
        'removed_at',
        'amount_hr_micros',
        'amount_mo_micros',
        'prepaid_until',
      ])
      .where('account_id', '=', accountId)
      .where('created_at', '<', month.end)
      .where((eb) => eb.or([eb('removed_at', 'is', null), eb('removed_at', '>', month.start)]))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  },
};
