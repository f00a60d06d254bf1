// The words and figures of an invoice document as printed (its PDF's content) and mailed: money
// to the cent, days as YYYY-MM-DD. What the figures are is document.service.ts's (micro-dollars).

import { isoSeconds } from '../platform/clock.ts';
import { formatMoney } from '../platform/money.ts';
import { taxOf } from '../billing/billing-settings.ts';
import type { TransactionRow } from '../billing/billing.table.ts';
import type { InvoiceSumField } from '../billing/invoice-sum.ts';
import type { DocumentContent } from './document-pdf.ts';
import { documentNumberText } from './document-name.ts';
import { letterText } from '../mail/letter.ts';

/** What a month held for an account, in micro-dollars (see monthFigures). */
export interface MonthFigures {
  usage: number;
  paymentsNet: number;
  tax: number;
  opening: number;
  closing: number;
  /** The month's usage per invoice/sum field, to the cent. */
  usageByType: [InvoiceSumField, number][];
  usageLines: { createdAt: number; description: string; resourceType: string; chargeMicros: number }[];
  /** Null when the month had no charge paid up front. */
  commitTotal: number | null;
  payments: TransactionRow[];
}

const money = (micros: number) => formatMoney(micros, 2);
const day = (ms: number) => isoSeconds(ms).slice(0, 10);

/** The name of the month `ms` is in (UTC), YYYY-MM. */
export function periodOf(ms: number): string {
  return isoSeconds(ms).slice(0, 7);
}

/** A month's figures as the PDF prints them. */
export function documentContent(
  figures: MonthFigures,
  month: { start: number; end: number; period: string },
): Omit<DocumentContent, 'number' | 'issued' | 'seller' | 'customer'> {
  return {
    period: month.period,
    periodStart: day(month.start),
    periodEnd: day(month.end - 1),
    usageLines: figures.usageLines.map((line) => ({
      date: day(line.createdAt),
      description: `${line.description} (${line.resourceType})`,
      amount: money(line.chargeMicros),
    })),
    usageByType: figures.usageByType.map(([field, micros]) => [field, money(micros)]),
    usageTotal: money(figures.usage),
    commitTotal: figures.commitTotal === null ? null : money(figures.commitTotal),
    payments: figures.payments.map((t) => ({
      date: day(t.settled_at ?? t.created_at),
      description: `${t.ptype} ${t.reference ?? `#${t.id}`}${t.note ? ` (${t.note})` : ''}`,
      amount: money(t.amount_micros),
      vatRate: (t.taxrate_bp / 100).toFixed(2),
      vat: money(taxOf(t.amount_micros, t.taxrate_bp)),
      gross: money(t.amount_micros + taxOf(t.amount_micros, t.taxrate_bp)),
    })),
    paymentsNet: money(figures.paymentsNet),
    tax: money(figures.tax),
    paymentsGross: money(figures.paymentsNet + figures.tax),
    opening: money(figures.opening),
    closing: money(figures.closing),
  };
}

/** The mail that carries a document. */
export function documentMail(
  number: number,
  period: string,
  figures: MonthFigures,
  names: { customer: string; seller: string },
): { subject: string; text: string } {
  return {
    subject: `Your invoice ${documentNumberText(number)} for ${period}`,
    text: letterText(names.customer, [
      `attached is invoice ${documentNumberText(number)} for ${period}.`,
      `Usage: ${money(figures.usage)} USD. Payments: ${money(figures.paymentsNet)} USD plus ${money(figures.tax)} USD VAT.`,
      `Balance carried over: ${money(figures.opening)} USD; at the end of the month: ${money(figures.closing)} USD.`,
      '',
      names.seller,
    ]),
  };
}
