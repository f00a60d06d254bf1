// Invoice sums: what an account's metered resources cost, per resource type, over an interval
// [from, to). Each hour is counted in the interval where it begins (see metering.ts); hours
// paid up front by a commit are in the transaction list, not here, so nothing is shown twice.
//
// Rounding: a figure is the difference of two running totals (everything the type cost before
// `to`, and before `from`), each rounded to the cent. So adjacent intervals add up to the cent
// (sum(a, b) + sum(b, c) = sum(a, c)), and each figure is within a cent of the exact charge.
// Figures are micro-dollars (whole cents) and the bounds clock ms; the API shows them.

import type { Platform } from '../platform/context.ts';
import { roundToCent } from '../platform/money.ts';
import { chargeBetween } from './metering.ts';
import { readSnapshot } from './read-snapshot.ts';
import { billingRepository } from './billing.repository.ts';
import type { PricedItem } from './pricing.ts';

/**
 * The spec's fields, then one per billable type the spec's list lacks (floating_ip, vpc, bandwidth), so the
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
  'bandwidth',
] as const;
export type InvoiceSumField = (typeof INVOICE_SUM_FIELDS)[number];

// Every type an invoice item can have must have a field: this fails to compile otherwise.
const everyTypeHasAField: Exclude<PricedItem['resourceType'], InvoiceSumField> extends never ? true : never = true;
void everyTypeHasAField;

/** What each type cost in [from, to), micro-dollars rounded to the cent. */
export interface InvoiceSum {
  charges: Record<InvoiceSumField, number>;
  from: number;
  to: number;
}

/** What the account's metered resources cost in [from, to) (clock ms, from ≤ to), per type. */
export async function invoiceSum(ctx: Platform, accountId: number, from: number, to: number): Promise<InvoiceSum> {
  const now = ctx.clock.now();
  const before = { from: zeroes(), to: zeroes() };
  // Both reads see one snapshot, so an item closed meanwhile is counted once.
  const [settled, overlapping] = await readSnapshot(ctx, (trx) =>
    Promise.all([
      // Items removed by `from` have a final charge that lies wholly before it: the database sums them.
      billingRepository.settledChargesBefore(trx, accountId, from),
      billingRepository.itemsOverlapping(trx, accountId, from, to),
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

  const charges = zeroes();
  for (const field of INVOICE_SUM_FIELDS)
    charges[field] = roundToCent(before.to[field]) - roundToCent(before.from[field]);
  return { charges, from, to };
}

function zeroes(): Record<InvoiceSumField, number> {
  return Object.fromEntries(INVOICE_SUM_FIELDS.map((field) => [field, 0])) as Record<InvoiceSumField, number>;
}

function fieldOf(resourceType: string): InvoiceSumField {
  if ((INVOICE_SUM_FIELDS as readonly string[]).includes(resourceType)) return resourceType as InvoiceSumField;
  // openInvoiceItems only writes PricedItem types, each of which has a field (checked above).
  throw new Error(`invoice item of unknown resource type "${resourceType}"`);
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

/**
 * Milliseconds of a timestamp, or null. Accepts ISO 8601 in the extended and the basic form
 * (calendar, ordinal and week dates; a date alone, or with a time of hours, minutes or seconds, a
 * fraction and a zone: `Z`, `±HH`, `±HHMM`, `±HH:MM`), RFC 2822 (and what else JavaScript's Date
 * reads with a four-digit year), and Unix seconds or milliseconds; a bare 8-digit number is an
 * ISO 8601 basic date (`20261101`), never seconds. Years 1 to 9999. A text without a zone is UTC.
 */
export function parseTimestamp(input: string): number | null {
  const text = input.trim();
  let ms: number | null;
  const iso = parseIso8601(text);
  if (iso !== undefined) ms = iso;
  else if (/^\d{1,11}(\.\d{1,3})?$/.test(text)) {
    // Unix seconds (four digits are a year and eight a basic date, both read above).
    const [whole = '0', fraction = ''] = text.split('.');
    ms = Number(whole) * 1000 + Number(fraction.padEnd(3, '0'));
  } else if (/^\d{12,13}$/.test(text)) {
    // Unix milliseconds (Date.now() in JavaScript): as seconds, 12 digits would be past year 5000.
    ms = Number(text);
  } else if (/\b\d{4}\b/.test(text)) {
    // RFC 2822 and the like must at least name a four-digit year: Date's legacy parser reads "12" as 2001.
    const hasZone = /(?:\b(?:UTC|GMT|UT|Z|[ECMP][SD]T)\b|[+-]\d{2}:?\d{2}\b)/i.test(text);
    const parsed = Date.parse(hasZone ? text : `${text} UTC`);
    ms = Number.isNaN(parsed) ? null : parsed;
  } else ms = null;
  return ms !== null && ms >= earliest && ms <= latest ? ms : null;
}

const datePatterns: [RegExp, (m: RegExpExecArray) => number | null][] = [
  // Calendar dates: YYYY, YYYY-MM, YYYY-MM-DD, YYYYMMDD.
  [/^(\d{4})$/, (m) => calendar(m[1]!, '01', '01')],
  [/^(\d{4})-(\d{2})$/, (m) => calendar(m[1]!, m[2]!, '01')],
  [/^(\d{4})(-?)(\d{2})\2(\d{2})$/, (m) => calendar(m[1]!, m[3]!, m[4]!)],
  // Ordinal dates: YYYY-DDD, YYYYDDD.
  [/^(\d{4})-?(\d{3})$/, (m) => ordinal(Number(m[1]), Number(m[2]))],
  // Week dates: YYYY-Www, YYYY-Www-D, YYYYWww, YYYYWwwD.
  [/^(\d{4})(-?)W(\d{2})(?:\2([1-7]))?$/i, (m) => week(Number(m[1]), Number(m[3]), Number(m[4] ?? 1))],
];

const timePattern = /^(\d{2})(?:(:?)(\d{2})(?:\2(\d{2}))?)?(?:[.,](\d+))?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/i;

/** An ISO 8601 timestamp's milliseconds; null when ISO-shaped but impossible; undefined when not ISO 8601 at all. */
function parseIso8601(text: string): number | null | undefined {
  const split = text.search(/[Tt ]/);
  const datePart = split < 0 ? text : text.slice(0, split);
  const timePart = split < 0 ? null : text.slice(split + 1).trim();
  // A bare number of 7 digits is Unix seconds, not an ordinal date; 8 digits is a basic date.
  if (timePart === null && /^\d{7}$/.test(datePart)) return undefined;
  const found = datePatterns.find(([pattern]) => pattern.test(datePart));
  if (!found) return undefined;
  const day = found[1](found[0].exec(datePart)!);
  if (timePart === null) return day;
  const time = timePattern.exec(timePart);
  if (!time) return undefined;
  if (day === null) return null;
  const [, h, , mi, s, fraction, zone] = time;
  const hour = Number(h);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  if (hour > 24 || minute > 59 || second > 59 || (hour === 24 && (minute > 0 || second > 0 || fraction))) return null;
  // A fraction belongs to the smallest unit written.
  const unitMs = s !== undefined ? 1000 : mi !== undefined ? 60_000 : 3_600_000;
  const fractionMs = fraction ? Math.floor(Number(`0.${fraction}`) * unitMs) : 0;
  let offsetMinutes = 0;
  const offset = zone ? /^([+-])(\d{2}):?(\d{2})?$/.exec(zone) : null;
  if (offset) {
    const [, sign, oh, om = '00'] = offset;
    if (Number(oh) > 23 || Number(om) > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  }
  return day + ((hour * 60 + minute) * 60 + second) * 1000 + fractionMs - offsetMinutes * 60_000;
}

function calendar(y: string, mo: string, d: string): number | null {
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  if (month < 1 || month > 12 || day < 1 || day > new Date(utc(year, month, 0)).getUTCDate()) return null;
  return utc(year, month - 1, day);
}

function ordinal(year: number, dayOfYear: number): number | null {
  const days = (utc(year + 1, 0) - utc(year, 0)) / 86_400_000;
  return dayOfYear >= 1 && dayOfYear <= days ? utc(year, 0, dayOfYear) : null;
}

/** Week `week` (1–52 or 53) of ISO week-year `year`, weekday 1 (Monday) to 7. */
function week(year: number, weekNumber: number, weekday: number): number | null {
  // Week 1 holds 4 January; its Monday starts the week-year.
  const jan4 = utc(year, 0, 4);
  const monday = jan4 - ((new Date(jan4).getUTCDay() + 6) % 7) * 86_400_000;
  const weeks = (() => {
    const dec28 = utc(year, 11, 28); // always in the last week
    return Math.floor((dec28 - monday) / (7 * 86_400_000)) + 1;
  })();
  if (weekNumber < 1 || weekNumber > weeks) return null;
  return monday + ((weekNumber - 1) * 7 + (weekday - 1)) * 86_400_000;
}
