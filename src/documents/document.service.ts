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

import { sql } from 'kysely';
import { transaction } from '../db/transaction.ts';
import type { Actor, Platform } from '../platform/context.ts';
import { NotFound } from '../platform/errors.ts';
import { isoSeconds } from '../platform/clock.ts';
import { formatMoney, toCents } from '../platform/money.ts';
import { billingSettings, taxOf } from '../billing/billing-settings.ts';
import type { InvoiceDocumentRow } from '../billing/billing.table.ts';
import { invoiceSum, INVOICE_SUM_FIELDS } from '../billing/invoice-sum.ts';
import { chargeBetween, monthBounds } from '../billing/metering.ts';
import { kickMailDelivery, queueMail } from '../mail/mail.service.ts';
import { findAccount } from '../accounts/operator.service.ts';
import type { DocumentContent } from './document-pdf.ts';
import { documentFilename, documentNumberText } from './document-name.ts';

/** Transactions that bring money in (or take it back out: refunds, disputes), as opposed to commit charges. */
const paymentTypes = ['stripe', 'simulated', 'bank', 'operator'];
const counterKey = 'invoice_document_number';

export interface InvoiceDocument {
  id: number;
  number: number;
  /** The month, YYYY-MM. */
  period: string;
  ts_start: string;
  ts_end: string;
  /** USD: what the month's usage cost (the month's invoice/sum, all fields). */
  usage: number;
  /** USD: payments net of VAT (refunds and disputes subtract). */
  payments: number;
  /** USD: VAT on those payments. */
  tax: number;
  opening_balance: number;
  closing_balance: number;
  ts_created: string;
}

export function rowToDocument(row: Omit<InvoiceDocumentRow, 'pdf'>): InvoiceDocument {
  return {
    id: row.id,
    number: Number(row.number),
    period: row.period,
    ts_start: isoSeconds(row.period_start),
    ts_end: isoSeconds(row.period_end),
    usage: toCents(row.usage_micros),
    payments: toCents(row.payments_micros),
    tax: toCents(row.tax_micros),
    opening_balance: toCents(row.opening_micros),
    closing_balance: toCents(row.closing_micros),
    ts_created: isoSeconds(row.created_at),
  };
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

export async function listDocuments(
  ctx: Platform,
  accountId: number,
): Promise<{ documents: InvoiceDocument[]; meta: { total: number } }> {
  const rows = await ctx.db
    .selectFrom('invoice_documents')
    .select(listedColumns)
    .where('account_id', '=', accountId)
    .orderBy('number', 'desc')
    .execute();
  return { documents: rows.map(rowToDocument), meta: { total: rows.length } };
}

/** A document's PDF and file name; 404 for another account's (when `accountId` is given). */
export async function documentPdf(
  ctx: Platform,
  documentId: number,
  accountId: number | null,
): Promise<{ filename: string; pdf: Buffer }> {
  let query = ctx.db.selectFrom('invoice_documents').select(['number', 'period', 'pdf']).where('id', '=', documentId);
  if (accountId !== null) query = query.where('account_id', '=', accountId);
  const row = await query.executeTakeFirst();
  if (!row) throw new NotFound('document');
  return { filename: documentFilename(Number(row.number), row.period), pdf: Buffer.from(row.pdf, 'base64') };
}

export function accountDocuments(ctx: Platform, actor: Actor) {
  return listDocuments(ctx, actor.accountId);
}

/** Any account's documents, the account named by id, uuid or e-mail (the operator). */
export async function operatorDocuments(ctx: Platform, ref: string) {
  return listDocuments(ctx, (await findAccount(ctx, ref)).id);
}

const money = (micros: number) => formatMoney(micros, 2);
const day = (ms: number) => isoSeconds(ms).slice(0, 10);

/** Per database: the last month found to have all its documents. */
const completedPeriods = new WeakMap<Platform['db'], string>();

/** The month before the one `now` is in. */
function previousMonth(now: number): { start: number; end: number; period: string } {
  const current = monthBounds(now);
  const { start, end } = monthBounds(current.start - 1);
  return { start, end, period: isoSeconds(start).slice(0, 7) };
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
  const accounts = await ctx.db
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
  let issued = 0;
  for (const { id } of accounts) if (await issueDocument(ctx, id, month)) issued++;
  if (accounts.length === 0) completedPeriods.set(ctx.db, month.period);
  if (issued) kickMailDelivery(ctx);
  return issued;
}

/** A document was issued meanwhile (another instance): roll the counter back with it. */
class AlreadyIssued extends Error {}

/** Issues one account's document for a month; false when it exists already. */
export async function issueDocument(
  ctx: Platform,
  accountId: number,
  month: { start: number; end: number; period: string },
): Promise<boolean> {
  const account = await ctx.db
    .selectFrom('accounts')
    .select(['id', 'email', 'firstname', 'lastname', 'country'])
    .where('id', '=', accountId)
    .executeTakeFirst();
  if (!account) return false;
  const figures = await monthFigures(ctx, accountId, month);
  const issuedAt = ctx.clock.now();
  // pdfkit and its fonts load when the first document is issued, not at every start (a
  // fifth of a cold start), and before the transaction, so no lock waits on the loading.
  const { renderDocumentPdf } = await import('./document-pdf.ts');
  try {
    await transaction(ctx, async (trx) => {
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
      const number = Number(counter.value);
      const content: DocumentContent = {
        ...figures.content,
        number,
        issued: new Date(issuedAt),
        seller: billingSettings(ctx).seller,
        customer: {
          name: `${account.firstname} ${account.lastname}`.trim(),
          email: account.email,
          country: account.country,
          accountId: account.id,
        },
      };
      const pdf = await renderDocumentPdf(content);
      const inserted = await trx
        .insertInto('invoice_documents')
        .values({
          number,
          account_id: accountId,
          period: month.period,
          period_start: month.start,
          period_end: month.end,
          usage_micros: figures.usage,
          payments_micros: figures.paymentsNet,
          tax_micros: figures.tax,
          opening_micros: figures.opening,
          closing_micros: figures.closing,
          pdf: pdf.toString('base64'),
          created_at: issuedAt,
        })
        .onConflict((oc) => oc.columns(['account_id', 'period']).doNothing())
        .returning('id')
        .executeTakeFirst();
      if (!inserted) throw new AlreadyIssued();
      await queueMail(ctx, trx, {
        to: account.email,
        subject: `Your invoice ${documentNumberText(number)} for ${month.period}`,
        text: [
          `Hello ${content.customer.name},`,
          '',
          `attached is invoice ${documentNumberText(number)} for ${month.period}.`,
          `Usage: ${money(figures.usage)} USD. Payments: ${money(figures.paymentsNet)} USD plus ${money(figures.tax)} USD VAT.`,
          `Balance carried over: ${money(figures.opening)} USD; at the end of the month: ${money(figures.closing)} USD.`,
          '',
          content.seller.name,
        ].join('\n'),
        documentId: inserted.id,
      });
    });
    return true;
  } catch (error) {
    if (error instanceof AlreadyIssued) return false;
    throw error;
  }
}

interface MonthFigures {
  usage: number;
  paymentsNet: number;
  tax: number;
  opening: number;
  closing: number;
  content: Omit<DocumentContent, 'number' | 'issued' | 'seller' | 'customer'>;
}

/**
 * What a month holds for an account, in micro-dollars: usage as invoice/sum totals it (every
 * field), the settled transactions (payments with their VAT, commit charges), and the balance
 * before and after, computed as the same rounded running totals so the document adds up.
 */
async function monthFigures(
  ctx: Platform,
  accountId: number,
  month: { start: number; end: number; period: string },
): Promise<MonthFigures> {
  const now = ctx.clock.now();
  const sumOf = async (from: number, to: number) => {
    const sum = (await invoiceSum(ctx, accountId, from, to)).charges;
    return { sum, total: INVOICE_SUM_FIELDS.reduce((total, field) => total + sum[field], 0) };
  };
  const beginning = Date.UTC(1970, 0, 1);
  const [monthSum, before] = await Promise.all([sumOf(month.start, month.end), sumOf(beginning, month.start)]);
  const settledBefore = await ctx.db
    .selectFrom('transactions')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amount_micros'), eb.val(0)).as('total'))
    .where('account_id', '=', accountId)
    .where('settled_at', 'is not', null)
    .where('settled_at', '<', month.start)
    .executeTakeFirstOrThrow();
  const transactions = await ctx.db
    .selectFrom('transactions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('settled_at', '>=', month.start)
    .where('settled_at', '<', month.end)
    .orderBy('settled_at')
    .orderBy('id')
    .execute();
  const items = await ctx.db
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

  const payments = transactions.filter((t) => paymentTypes.includes(t.ptype));
  const commits = transactions.filter((t) => !paymentTypes.includes(t.ptype));
  const paymentsNet = payments.reduce((total, t) => total + t.amount_micros, 0);
  const tax = payments.reduce((total, t) => total + taxOf(t.amount_micros, t.taxrate_bp), 0);
  const commitTotal = commits.reduce((total, t) => total + t.amount_micros, 0);
  const opening = Number(settledBefore.total) - before.total;
  const closing = opening + paymentsNet + commitTotal - monthSum.total;
  return {
    usage: monthSum.total,
    paymentsNet,
    tax,
    opening,
    closing,
    content: {
      period: month.period,
      periodStart: day(month.start),
      periodEnd: day(month.end - 1),
      usageLines: items.map((item) => ({
        date: day(item.created_at),
        description: `${item.description} (${item.resource_type})`,
        amount: money(chargeBetween(item, month.start, month.end, now)),
      })),
      usageByType: INVOICE_SUM_FIELDS.filter((field) => monthSum.sum[field] !== 0).map((field) => [
        field,
        money(monthSum.sum[field]),
      ]),
      usageTotal: money(monthSum.total),
      commitTotal: commits.length ? money(commitTotal) : null,
      payments: payments.map((t) => ({
        date: day(t.settled_at ?? t.created_at),
        description: `${t.ptype} ${t.reference ?? `#${t.id}`}${t.note ? ` (${t.note})` : ''}`,
        amount: money(t.amount_micros),
        vatRate: (t.taxrate_bp / 100).toFixed(2),
        vat: money(taxOf(t.amount_micros, t.taxrate_bp)),
        gross: money(t.amount_micros + taxOf(t.amount_micros, t.taxrate_bp)),
      })),
      paymentsNet: money(paymentsNet),
      tax: money(tax),
      paymentsGross: money(paymentsNet + tax),
      opening: money(opening),
      closing: money(closing),
    },
  };
}
