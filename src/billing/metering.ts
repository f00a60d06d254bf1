// Metering: the charge of one invoice item over an interval, derived from its timestamps.
// Started hours are billed at amount_hr, capped at amount_mo per calendar month (UTC);
// hours covered by a prepaid commit are not charged again.

import type { InvoiceItemRow } from './billing.table.ts';

const hourMs = 3_600_000;

/** Hours started by the item inside [from, to), counting from the item's own start. */
export function startedHours(item: Pick<InvoiceItemRow, 'created_at' | 'removed_at'>, from: number, to: number): number {
  const start = Math.max(item.created_at, from);
  const end = Math.min(item.removed_at ?? to, to);
  if (end <= start) return 0;
  // Hour boundaries are anchored at the item's creation, so an hour is charged once.
  const firstHour = Math.floor((start - item.created_at) / hourMs);
  const lastHour = Math.ceil((end - item.created_at) / hourMs);
  return lastHour - firstHour;
}

/** Charge in micro-dollars of the item over [from, to). */
export function chargeOfItem(item: InvoiceItemRow, from: number, to: number): number {
  let total = 0;
  const billedFrom = Math.max(from, item.prepaid_until ?? item.created_at, item.created_at);
  const end = Math.min(item.removed_at ?? to, to);
  // Walk calendar months so the monthly cap applies to each.
  let cursor = billedFrom;
  while (cursor < end) {
    const month = new Date(cursor);
    const nextMonth = Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1);
    const sliceEnd = Math.min(end, nextMonth);
    const hours = startedHours(item, cursor, sliceEnd);
    total += Math.min(hours * item.amount_hr_micros, item.amount_mo_micros);
    cursor = sliceEnd;
  }
  return total;
}
