// Metering: what one invoice item costs, derived from its timestamps and the clock alone, so
// moving the virtual clock moves the charges with no background job. Integer arithmetic only.
//
// The rules (the decisions table (docs/decisions.md), billing):
// - Hours are anchored at the item's creation: hour k begins at created_at + k hours. An hour is
//   charged in full once it has begun ("started hours"): at the instant it begins for an open
//   item, and only if it begins before removed_at for a removed one.
// - Each hour belongs to the calendar month (UTC) in which it begins, so an hour that straddles
//   a month boundary is charged once, in the month where it started.
// - In each calendar month an item costs at most amount_mo: its n-th hour of the month costs
//   min(n × amount_hr, amount_mo) − min((n − 1) × amount_hr, amount_mo).
// - Hours that begin before prepaid_until were paid up front (server create `commit`, recorded as
//   a transaction): they cost nothing here, but they still count towards the month's cap, so
//   what an item costs in a month, paid up front or metered, never exceeds amount_mo.

import { civilFromDays, daysFromCivil } from '../platform/clock.ts';

export const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The fields metering reads; invoice item rows have them. */
export interface MeteredItem {
  created_at: number;
  removed_at: number | null;
  amount_hr_micros: number;
  amount_mo_micros: number;
  prepaid_until: number | null;
}

/** ⌈a / b⌉ for integers, b > 0, without a float division. */
function ceilDiv(a: number, b: number): number {
  const remainder = ((a % b) + b) % b;
  return (a - remainder) / b + (remainder === 0 ? 0 : 1);
}

/** Hours of the item that begin strictly before `instant` (ignoring removal). */
function hoursBeginningBefore(item: Pick<MeteredItem, 'created_at'>, instant: number): number {
  return instant <= item.created_at ? 0 : ceilDiv(instant - item.created_at, HOUR_MS);
}

/** Hours of the item that have begun by `now` and before its removal: its usage. */
export function startedHours(item: Pick<MeteredItem, 'created_at' | 'removed_at'>, now: number): number {
  // "Begun by now" means begin ≤ now, i.e. begin < now + 1 ms (timestamps are integer ms).
  const byNow = hoursBeginningBefore(item, now + 1);
  return item.removed_at === null ? byNow : Math.min(byNow, hoursBeginningBefore(item, item.removed_at));
}

/** Hours covered by the up-front payment: those that begin before prepaid_until. */
export function prepaidHours(item: Pick<MeteredItem, 'created_at' | 'prepaid_until'>): number {
  return item.prepaid_until === null ? 0 : hoursBeginningBefore(item, item.prepaid_until);
}

/** Start of the UTC calendar month containing `instant`, and of the next one. */
export function monthBounds(instant: number): Readonly<{ start: number; end: number }> {
  // Nearly every instant asked about (an open item's hours, a reading) falls in the month asked
  // about last; a long-lived item's charge walks its months one after the other (a ten-year clock
  // advance, each month's documents summing every item from its creation), so the months are
  // counted in integers, not read off a Date.
  if (instant >= lastMonth.start && instant < lastMonth.end) return lastMonth;
  const { year, month } = civilFromDays(Math.floor(instant / DAY_MS));
  lastMonth = Object.freeze({
    start: daysFromCivil(year, month, 1) * DAY_MS,
    end: (month === 12 ? daysFromCivil(year + 1, 1, 1) : daysFromCivil(year, month + 1, 1)) * DAY_MS,
  });
  return lastMonth;
}
let lastMonth: Readonly<{ start: number; end: number }> = { start: 0, end: 0 };

/**
 * Charge in micro-dollars of the item's hours that begin in [from, to) and have begun by
 * `now`. Additive: charge(a, b) + charge(b, c) = charge(a, c) for a ≤ b ≤ c.
 */
export function chargeBetween(item: MeteredItem, from: number, to: number, now: number): number {
  const started = startedHours(item, now);
  const first = Math.max(prepaidHours(item), hoursBeginningBefore(item, from));
  const last = Math.min(started, hoursBeginningBefore(item, to));
  let total = 0;
  // Walk the calendar months the hours [first, last) begin in; the cap applies to each.
  for (let hour = first; hour < last; ) {
    const { start, end } = monthBounds(item.created_at + hour * HOUR_MS);
    const firstOfMonth = hoursBeginningBefore(item, start);
    const sliceEnd = Math.min(last, hoursBeginningBefore(item, end));
    total += cappedCost(item, sliceEnd - firstOfMonth) - cappedCost(item, hour - firstOfMonth);
    hour = sliceEnd;
  }
  return total;
}

/** What the first `hours` hours of a month cost together: the hourly price up to the monthly cap. */
function cappedCost(item: Pick<MeteredItem, 'amount_hr_micros' | 'amount_mo_micros'>, hours: number): number {
  return Math.min(hours * item.amount_hr_micros, item.amount_mo_micros);
}

/** Everything the item has cost by `now` (for a removed item, its final charge). */
export function chargeOfItem(item: MeteredItem, now: number): number {
  return chargeBetween(item, item.created_at, Math.max(item.created_at, now) + 1, now);
}

/** Price of the item's hour under way at `now`, nominally: 0 once removed or while prepaid. */
export function hourlyBurn(item: MeteredItem, now: number): number {
  if (item.removed_at !== null && item.removed_at <= now) return 0;
  const current = startedHours(item, now) - 1;
  return current < prepaidHours(item) ? 0 : item.amount_hr_micros;
}
