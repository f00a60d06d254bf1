// Invoice sums: what an account's metered resources cost, per resource type, over an interval
// [from, to). Each hour is counted in the interval where it begins (see metering.ts); hours
// paid up front by a commit are in the transaction list, not here, so nothing is shown twice.
//
// Rounding: a figure is the difference of two running totals (everything the type cost before
// `to`, and before `from`), each rounded to the cent. So adjacent intervals add up to the cent
// (sum(a, b) + sum(b, c) = sum(a, c)), and each figure is within a cent of the exact charge.

import type { Platform } from '../platform/context.ts';
import { Invalid } from '../platform/errors.ts';
import { isoSeconds } from '../platform/clock.ts';
import { roundToCent, toCents } from '../platform/money.ts';
import { chargeBetween, monthBounds } from './metering.ts';
import { readSnapshot } from './read-snapshot.ts';
import type { PricedItem } from './pricing.ts';

/**
 * The spec's fields, then one per billable type the spec's list lacks (floating_ip, vpc), so the
 * figures always add up to every metered charge. The backup total is `backup`, as declared
 * (an example spells it auto_backups).
 */
export const INVOICE_SUM_FIELDS = [
  'server',
  'license',
  'snapshot',
  'backup',
  'block_storage',
  'object_storage',
  'ddos_protection',
  'floating_ip',
  'vpc',
] as const;
export type InvoiceSumField = (typeof INVOICE_SUM_FIELDS)[number];

// Every type an invoice item can have must have a field: this fails to compile otherwise.
const everyTypeHasAField: Exclude<PricedItem['resourceType'], InvoiceSumField> extends never ? true : never = true;
void everyTypeHasAField;

export type InvoiceSum = Record<InvoiceSumField, number> & { ts_start: string; ts_end: string };

export interface InvoiceSumInput {
  /** Any text a timestamp can be parsed from; empty or missing: the start of the clock's current month. */
  from?: string | null;
  /** Likewise; empty or missing: the start of the next month. */
  to?: string | null;
}

export async function invoiceSum(ctx: Platform, accountId: number, input: InvoiceSumInput): Promise<InvoiceSum> {
  const now = ctx.clock.now();
  const month = monthBounds(now);
  const fromGiven = isGiven(input.from);
  const toGiven = isGiven(input.to);
  const from = fromGiven ? timestampOrThrow('from', input.from!) : month.start;
  const to = toGiven ? timestampOrThrow('to', input.to!) : month.end;
  if (from > to) {
    if (toGiven) throw new Invalid('to', `bad value: ${isoSeconds(to)} is before from (${isoSeconds(from)})`);
    throw new Invalid(
      'from',
      `bad value: ${isoSeconds(from)} is after the end of the current month (${isoSeconds(to)}), the default of to`,
    );
  }

  const before = { from: zeroes(), to: zeroes() };
  // Both reads see one snapshot, so an item closed meanwhile is counted once.
  const [settled, overlapping] = await readSnapshot(ctx, (trx) =>
    Promise.all([
      // Items removed by `from` have a final charge that lies wholly before it: the database sums them.
      trx
        .selectFrom('invoice_items')
        .select((eb) => ['resource_type', eb.fn.sum<number>('final_charge_micros').as('total')])
        .where('account_id', '=', accountId)
        .where('final_charge_micros', 'is not', null)
        .where('removed_at', '<=', from)
        .groupBy('resource_type')
        .execute(),
      trx
        .selectFrom('invoice_items')
        .select(['resource_type', 'created_at', 'removed_at', 'amount_hr_micros', 'amount_mo_micros', 'prepaid_until'])
        .where('account_id', '=', accountId)
        .where('created_at', '<', to)
        .where((eb) => eb.or([eb('final_charge_micros', 'is', null), eb('removed_at', '>', from)]))
        .execute(),
    ]),
  );
  for (const row of settled) {
    const field = fieldOf(row.resource_type);
    before.from[field] += Number(row.total);
    before.to[field] += Number(row.total);
  }
  for (const item of overlapping) {
    const field = fieldOf(item.resource_type);
    before.from[field] += chargeBetween(item, item.created_at, from, now);
    before.to[field] += chargeBetween(item, item.created_at, to, now);
  }

  const sum = zeroes();
  for (const field of INVOICE_SUM_FIELDS)
    sum[field] = toCents(roundToCent(before.to[field]) - roundToCent(before.from[field]));
  return { ...sum, ts_start: isoSeconds(from), ts_end: isoSeconds(to) };
}

function zeroes(): Record<InvoiceSumField, number> {
  return Object.fromEntries(INVOICE_SUM_FIELDS.map((field) => [field, 0])) as Record<InvoiceSumField, number>;
}

function fieldOf(resourceType: string): InvoiceSumField {
  if ((INVOICE_SUM_FIELDS as readonly string[]).includes(resourceType)) return resourceType as InvoiceSumField;
  // openInvoiceItems only writes PricedItem types, each of which has a field (checked above).
  throw new Error(`invoice item of unknown resource type "${resourceType}"`);
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

/** Date.UTC with four-digit years taken as written (Date.UTC reads 0–99 as 1900–1999). */
function utc(year: number, monthIndex: number, day = 1, hour = 0, minute = 0, second = 0, ms = 0): number {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

const earliest = utc(1, 0);
const latest = utc(9999, 11, 31, 23, 59, 59, 999);

const isoPattern =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T\s](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Milliseconds of a timestamp, or null. Accepts ISO 8601 (year, month, date, date and time, with
 * or without seconds, fraction and offset), Unix seconds (or milliseconds, 12–13 digits), and what
 * JavaScript's Date parses (RFC 2822, "March 1, 2026", ...), in years 1 to 9999. A text without a
 * time zone is UTC, never the server's local time.
 */
export function parseTimestamp(input: string): number | null {
  const text = input.trim();
  let ms: number | null = null;
  const iso = isoPattern.exec(text);
  if (iso) {
    ms = fromIsoParts(iso);
  } else if (/^\d{1,11}(\.\d{1,3})?$/.test(text)) {
    // Unix seconds (a bare four-digit number is a year, matched above).
    const [whole = '0', fraction = ''] = text.split('.');
    ms = Number(whole) * 1000 + Number(fraction.padEnd(3, '0'));
  } else if (/^\d{12,13}$/.test(text)) {
    // Unix milliseconds (Date.now() in JavaScript): as seconds, 12 digits would be past year 5000.
    ms = Number(text);
  } else if (/\b\d{4}\b/.test(text)) {
    // Anything else must at least name a four-digit year: Date's legacy parser reads "12" as 2001.
    const hasZone = /(?:\b(?:UTC|GMT|UT|Z)\b|[+-]\d{2}:?\d{2}\b)/i.test(text);
    const parsed = Date.parse(hasZone ? text : `${text} UTC`);
    ms = Number.isNaN(parsed) ? null : parsed;
  }
  return ms !== null && ms >= earliest && ms <= latest ? ms : null;
}

function fromIsoParts(match: RegExpExecArray): number | null {
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', fraction = '', zone = 'Z'] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  if (day > new Date(utc(year, month, 0)).getUTCDate()) return null;
  let offsetMinutes = 0;
  const offset = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (offset) {
    const [, sign, oh, om = '00'] = offset;
    if (Number(oh) > 14 || Number(om) > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  }
  return (
    utc(year, month - 1, day, hour, minute, second, Number(fraction.slice(0, 3).padEnd(3, '0'))) -
    offsetMinutes * 60_000
  );
}
