// Monthly invoice documents: for every account with activity in a calendar month (UTC), one PDF
// with the seller's and customer's details, the month's usage (its invoice items, totalled as
// invoice/sum totals them), its payments with their VAT, and the balance carried over. Issued on
// the first of the next month by the sweep, numbered without gaps across the deployment, mailed
// with the PDF attached, kept as issued and downloadable by the customer and the operator.
//
// Gapless numbers: one counter row (settings `invoice_document_number`) incremented in the
// transaction that inserts the document; a transaction that does not insert (the document was
// issued meanwhile by another instance) rolls back, counter included. On PostgreSQL the counter's
// row lock makes issuing one document at a time, deployment-wide, which a monthly run can afford.

import { transaction } from '../db/transaction.ts';
import type { Actor, Platform } from '../platform/context.ts';
import { NotFound } from '../platform/errors.ts';
import { billingSettings, taxOf } from '../billing/billing-settings.ts';
import { invoiceSum, INVOICE_SUM_FIELDS } from '../billing/invoice-sum.ts';
import { chargeBetween, monthBounds } from '../billing/metering.ts';
import { kickMailDelivery, queueMail } from '../mail/mail.service.ts';
import { findAccount } from '../accounts/operator.service.ts';
import type { DocumentContent } from './document-pdf.ts';
import { documentFilename } from './document-name.ts';
import { documentRepository, type ListedDocumentRow, type Month } from './document.repository.ts';
import { documentContent, documentMail, type MonthFigures, periodOf } from './document-text.ts';

/** Transactions that bring money in (or take it back out: refunds, disputes), as opposed to commit charges. */
const paymentTypes = ['stripe', 'simulated', 'bank', 'operator'];
const counterKey = 'invoice_document_number';

/** An issued document's figures (micro-dollars) and times (clock ms); the API shows them. */
export interface InvoiceDocument {
  id: number;
  number: number;
  /** The month, YYYY-MM. */
  period: string;
  periodStart: number;
  periodEnd: number;
  /** What the month's usage cost (the month's invoice/sum, all fields). */
  usageMicros: number;
  /** Payments net of VAT (refunds and disputes subtract). */
  paymentsMicros: number;
  /** VAT on those payments. */
  taxMicros: number;
  openingMicros: number;
  closingMicros: number;
  createdAt: number;
}

export function rowToDocument(row: ListedDocumentRow): InvoiceDocument {
  return {
    id: row.id,
    number: Number(row.number),
    period: row.period,
    periodStart: row.period_start,
    periodEnd: row.period_end,
    usageMicros: row.usage_micros,
    paymentsMicros: row.payments_micros,
    taxMicros: row.tax_micros,
    openingMicros: row.opening_micros,
    closingMicros: row.closing_micros,
    createdAt: row.created_at,
  };
}

export async function listDocuments(
  ctx: Platform,
  accountId: number,
): Promise<{ documents: InvoiceDocument[]; meta: { total: number } }> {
  const rows = await documentRepository.list(ctx.db, accountId);
  return { documents: rows.map(rowToDocument), meta: { total: rows.length } };
}

/** A document's PDF and file name; 404 for another account's (when `accountId` is given). */
export async function documentPdf(
  ctx: Platform,
  documentId: number,
  accountId: number | null,
): Promise<{ filename: string; pdf: Buffer }> {
  const row = await documentRepository.pdf(ctx.db, documentId, accountId);
  if (!row) throw new NotFound('document');
  return { filename: documentFilename(row.number, row.period), pdf: row.pdf };
}

export function accountDocuments(ctx: Platform, actor: Actor) {
  return listDocuments(ctx, actor.accountId);
}

/** Any account's documents, the account named by id, uuid or e-mail (the operator). */
export async function operatorDocuments(ctx: Platform, ref: string) {
  return listDocuments(ctx, (await findAccount(ctx, ref)).id);
}

/** Per database: the last month found to have all its documents. */
const completedPeriods = new WeakMap<Platform['db'], string>();

/** The month before the one `now` is in. */
function previousMonth(now: number): Month {
  const current = monthBounds(now);
  const { start, end } = monthBounds(current.start - 1);
  return { start, end, period: periodOf(start) };
}

/**
 * The sweep: issues the document of the month just ended for every account with activity in it
 * and none yet. Idempotent and safe on several instances (a unique (account, period) decides).
 * Answers how many it issued.
 */
export async function issueMonthlyDocuments(ctx: Platform): Promise<number> {
  const month = previousMonth(ctx.clock.now());
  // Once a month has every document it needs, none more can come (its activity is over): the
  // rounds until the next month skip the look-up.
  if (completedPeriods.get(ctx.db) === month.period) return 0;
  const accounts = await documentRepository.accountsToIssue(ctx.db, month);
  let issued = 0;
  for (const { id } of accounts) if (await issueDocument(ctx, id, month)) issued++;
  if (accounts.length === 0) completedPeriods.set(ctx.db, month.period);
  if (issued) kickMailDelivery(ctx);
  return issued;
}

/** A document was issued meanwhile (another instance): roll the counter back with it. */
class AlreadyIssued extends Error {}

/** Issues one account's document for a month; false when it exists already. */
export async function issueDocument(ctx: Platform, accountId: number, month: Month): Promise<boolean> {
  const account = await documentRepository.customer(ctx.db, accountId);
  if (!account) return false;
  const figures = await monthFigures(ctx, accountId, month);
  const issuedAt = ctx.clock.now();
  // pdfkit and its fonts load when the first document is issued, not at every start (a
  // fifth of a cold start), and before the transaction, so no lock waits on the loading.
  const { renderDocumentPdf } = await import('./document-pdf.ts');
  try {
    await transaction(ctx, async (trx) => {
      const number = await documentRepository.nextNumber(trx, counterKey);
      const content: DocumentContent = {
        ...documentContent(figures, month),
        number,
        issued: new Date(issuedAt),
        seller: billingSettings(ctx).seller,
        customer: {
          name: `${account.firstname} ${account.lastname}`.trim(),
          email: account.email,
          country: account.country,
          accountId: account.accountId,
        },
      };
      const pdf = await renderDocumentPdf(content);
      const inserted = await documentRepository.insert(trx, { number, accountId, month, figures, pdf, issuedAt });
      if (!inserted) throw new AlreadyIssued();
      await queueMail(ctx, trx, {
        to: account.email,
        ...documentMail(number, month.period, figures, {
          customer: content.customer.name,
          seller: content.seller.name,
        }),
        documentId: inserted.id,
      });
    });
    return true;
  } catch (error) {
    if (error instanceof AlreadyIssued) return false;
    throw error;
  }
}

/**
 * What a month holds for an account, in micro-dollars: usage as invoice/sum totals it (every
 * field), the settled transactions (payments with their VAT, commit charges), and the balance
 * before and after, computed as the same rounded running totals so the document adds up.
 */
async function monthFigures(ctx: Platform, accountId: number, month: Month): Promise<MonthFigures> {
  const now = ctx.clock.now();
  const sumOf = async (from: number, to: number) => {
    const sum = (await invoiceSum(ctx, accountId, from, to)).charges;
    return { sum, total: INVOICE_SUM_FIELDS.reduce((total, field) => total + sum[field], 0) };
  };
  const beginning = Date.UTC(1970, 0, 1);
  const [monthSum, before] = await Promise.all([sumOf(month.start, month.end), sumOf(beginning, month.start)]);
  const settledBefore = await documentRepository.settledBefore(ctx.db, accountId, month.start);
  const transactions = await documentRepository.settledIn(ctx.db, accountId, month);
  const items = await documentRepository.itemsIn(ctx.db, accountId, month);

  const payments = transactions.filter((t) => paymentTypes.includes(t.ptype));
  const commits = transactions.filter((t) => !paymentTypes.includes(t.ptype));
  const paymentsNet = payments.reduce((total, t) => total + t.amount_micros, 0);
  const tax = payments.reduce((total, t) => total + taxOf(t.amount_micros, t.taxrate_bp), 0);
  const commitTotal = commits.reduce((total, t) => total + t.amount_micros, 0);
  const opening = settledBefore - before.total;
  const closing = opening + paymentsNet + commitTotal - monthSum.total;
  return {
    usage: monthSum.total,
    paymentsNet,
    tax,
    opening,
    closing,
    usageByType: INVOICE_SUM_FIELDS.filter((field) => monthSum.sum[field] !== 0).map((field) => [
      field,
      monthSum.sum[field],
    ]),
    usageLines: items.map((item) => ({
      createdAt: item.created_at,
      description: item.description,
      resourceType: item.resource_type,
      chargeMicros: chargeBetween(item, month.start, month.end, now),
    })),
    commitTotal: commits.length ? commitTotal : null,
    payments,
  };
}
