// v1.3 billing: transactions, invoice items and invoice sums of the token's account.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import { listTransactions, type Transaction as DomainTransaction } from '../../billing/transaction.service.ts';
import {
  INVOICE_PAGE_SIZE,
  listInvoiceItems,
  type InvoiceItem as DomainInvoiceItem,
} from '../../billing/invoice-items.ts';
import {
  INVOICE_SUM_FIELDS,
  invoiceSum,
  parseTimestamp,
  type InvoiceSum as DomainInvoiceSum,
} from '../../billing/invoice-sum.ts';
import { monthBounds } from '../../billing/metering.ts';
import { isoOrNull, isoSeconds } from '../../platform/clock.ts';
import { Invalid } from '../../platform/errors.ts';
import { toCents, toDollars } from '../../platform/money.ts';
import { NullableTimestamp, responses, Timestamp, PageMeta } from './schemas.ts';

const tags = ['v1.3 billing'];
export const Transaction = Type.Object(
  {
    id: Type.String({ description: 'declared integer; sent string-shaped as the examples show' }),
    ptype: Type.String({
      description:
        'where the money came from: stripe, simulated (the emulator), bank, operator; commit for a charge paid up front',
      examples: ['stripe', 'bank', 'operator'],
    }),
    pstatus: Type.String({
      description:
        'pending (awaiting the payment), completed, failed (nothing credited), expired (a checkout left unpaid until the processor ended it; extension), refunded (a refunded payment, and the refund itself)',
      examples: ['pending', 'completed', 'failed', 'expired', 'refunded'],
    }),
    amount: Type.Number({
      description:
        'USD, rounded to the cent, what the balance gains (VAT excluded); negative for a refund, a dispute or a charge paid up front (commit)',
    }),
    fee: Type.Number({ description: "the processor's fee, USD, when it reports one" }),
    taxrate: Type.Number({
      description: 'VAT in percent, charged on top of the amount (extension: the rate of the account country)',
    }),
    reference: Type.Union([Type.String(), Type.Null()], {
      description: "extension: a bank transfer's reference, to put on the transfer; null for other transactions",
    }),
    ts_created: Timestamp,
    ts_last_changed: Timestamp,
  },
  { $id: 'Transaction', description: 'a transaction (spec: Transaction object)' },
);

/** A transaction on the wire (v1.3; the operator API adds its note). */
export function transactionObject(transaction: DomainTransaction): Static<typeof Transaction> {
  return {
    // The spec declares an integer but shows a string-shaped id; we send a string (decisions table).
    id: String(transaction.id),
    ptype: transaction.ptype,
    pstatus: transaction.pstatus,
    amount: toCents(transaction.amountMicros),
    fee: toCents(transaction.feeMicros),
    taxrate: transaction.taxrateBp / 100,
    reference: transaction.reference,
    ts_created: isoSeconds(transaction.createdAt),
    ts_last_changed: isoSeconds(transaction.updatedAt),
  };
}
const InvoiceItem = Type.Object(
  {
    active: Type.Integer({ description: '1 while the resource is billed, 0 once removed' }),
    amount_hr: Type.Number({ description: 'USD an hour, to the micro-dollar' }),
    amount_mo: Type.Number({ description: 'USD a month (the cap per calendar month), to the micro-dollar' }),
    resource_type: Type.String({
      examples: ['server', 'license', 'backup', 'snapshot', 'ddos_protection', 'floating_ip'],
    }),
    description: Type.String({
      description: 'extension: what is billed, naming the resource (a server by its label, a snapshot, an address)',
      examples: ['web-1 (Small)', 'snapshot nightly (25 GB)', 'floating IP 192.0.2.10'],
    }),
    resource_id: Type.String({ description: "extension: the billed resource's uuid" }),
    usage: Type.Integer({ description: 'hours started, including hours paid up front' }),
    ts_created: Timestamp,
    ts_removed: NullableTimestamp,
  },
  { $id: 'InvoiceItem', description: 'an invoice item (spec: Invoice item object)' },
);

function invoiceItemObject(item: DomainInvoiceItem): Static<typeof InvoiceItem> {
  return {
    active: item.removedAt === null ? 1 : 0,
    // Prices are shown to the micro-dollar: an hourly price is usually a fraction of a cent.
    amount_hr: toDollars(item.amountHrMicros),
    amount_mo: toDollars(item.amountMoMicros),
    resource_type: item.resourceType,
    description: item.description,
    resource_id: item.resourceUuid,
    usage: item.usageHours,
    ts_created: isoSeconds(item.createdAt),
    ts_removed: isoOrNull(item.removedAt),
  };
}
// Be liberal: Unix seconds (or milliseconds) may come as a number as well as a numeric string.
const TimestampText = Type.Union(
  [Type.String({ maxLength: 100 }), Type.Number({ minimum: 0, maximum: 9_999_999_999_999 }), Type.Null()],
  {
    description:
      'any text a timestamp can be parsed from: ISO 8601, RFC 2822, Unix seconds; UTC unless it names a zone; or Unix seconds (or milliseconds) as a number',
  },
);
/** A number is read as the text it stands for. */
const asText = (value: string | number | null | undefined) => (typeof value === 'number' ? String(value) : value);
const InvoiceSum = Type.Object(
  {
    ...Object.fromEntries(
      INVOICE_SUM_FIELDS.map((field) => [
        field,
        Type.Number({ description: `USD charged for ${field} in [ts_start, ts_end)` }),
      ]),
    ),
    ts_start: Timestamp,
    ts_end: Timestamp,
  },
  { $id: 'InvoiceSum', description: 'charges per resource type over a period (spec: Invoice sum object)' },
);

function invoiceSumObject(sum: DomainInvoiceSum): Static<typeof InvoiceSum> {
  return {
    ...Object.fromEntries(INVOICE_SUM_FIELDS.map((field) => [field, toCents(sum.charges[field])])),
    ts_start: isoSeconds(sum.from),
    ts_end: isoSeconds(sum.to),
  };
}

function isGiven(value: string | null | undefined): value is string {
  return value !== undefined && value !== null && value.trim() !== '';
}

function timestampOrThrow(field: string, text: string): number {
  const ms = parseTimestamp(text);
  if (ms === null)
    throw new Invalid(
      field,
      'bad value: not a timestamp; send e.g. "2026-03-01T00:00:00Z", "2026-03-01", "Sun, 01 Mar 2026 00:00:00 GMT" or Unix seconds',
    );
  return ms;
}

/**
 * The interval an invoice/sum body asks for: `from` and `to` in whatever text a timestamp can be parsed
 * from; empty or missing, the start of the current month (UTC) and the start of the next.
 */
function sumInterval(now: number, input: { from?: string | null; to?: string | null }): { from: number; to: number } {
  const month = monthBounds(now);
  const toGiven = isGiven(input.to);
  const from = isGiven(input.from) ? timestampOrThrow('from', input.from) : month.start;
  const to = toGiven ? timestampOrThrow('to', input.to!) : month.end;
  if (from > to) {
    if (toGiven) throw new Invalid('to', `bad value: ${isoSeconds(to)} is before from (${isoSeconds(from)})`);
    throw new Invalid(
      'from',
      `bad value: ${isoSeconds(from)} is after the end of the current month (${isoSeconds(to)}), the default of to`,
    );
  }
  return { from, to };
}

export function billingRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/transaction/list',
    config: { access: 'account' },
    schema: {
      operationId: 'listTransactions',
      summary: 'List transactions',
      description: 'The 100 latest transactions (credits and up-front charges) of the account, newest first.',
      tags,
      response: responses({ 200: Type.Object({ transactions: Type.Array(Transaction), meta: PageMeta }) }, [401, 429]),
    },
    handler: async (request) => {
      const { transactions, meta } = await listTransactions(ctx, actorOf(request).accountId);
      return { transactions: transactions.map(transactionObject), meta };
    },
  });

  app.route({
    method: 'GET',
    url: '/invoice/list',
    config: { access: 'account' },
    schema: {
      operationId: 'listInvoiceItems',
      summary: 'List invoice items',
      description: `Invoice items (one per billed resource and price), newest first, a page of ${INVOICE_PAGE_SIZE} at a time; \`start_id\` skips that many items (${INVOICE_PAGE_SIZE}, ${2 * INVOICE_PAGE_SIZE}, … fetch older pages). \`meta.total\` counts them all.`,
      tags,
      querystring: Type.Object({
        start_id: Type.Optional(
          Type.Integer({
            minimum: 0,
            maximum: 1_000_000_000,
            description: `a whole number of items to skip, 0 or more: ${INVOICE_PAGE_SIZE}, ${2 * INVOICE_PAGE_SIZE}, … fetch older pages`,
          }),
        ),
      }),
      response: responses({ 200: Type.Object({ invoices: Type.Array(InvoiceItem), meta: PageMeta }) }, [400, 401, 429]),
    },
    handler: async (request) => {
      const { invoices, meta } = await listInvoiceItems(ctx, actorOf(request).accountId, request.query.start_id ?? 0);
      return { invoices: invoices.map(invoiceItemObject), meta };
    },
  });

  app.route({
    method: 'POST',
    url: '/invoice/sum',
    config: { access: 'account' },
    schema: {
      operationId: 'sumInvoices',
      summary: 'Sum the charges of a period',
      description:
        'What each resource type cost in [from, to); both default to the current calendar month (UTC). Any text a timestamp can be parsed from is accepted.',
      tags,
      body: Type.Optional(Type.Object({ from: Type.Optional(TimestampText), to: Type.Optional(TimestampText) })),
      response: responses({ 200: InvoiceSum }, [400, 401, 429]),
    },
    handler: async (request) => {
      const { from, to } = sumInterval(ctx.clock.now(), {
        from: asText(request.body?.from),
        to: asText(request.body?.to),
      });
      return invoiceSumObject(await invoiceSum(ctx, actorOf(request).accountId, from, to));
    },
  });
}
