// Unit tests of the metering rules: started hours, the monthly cap per calendar month (UTC),
// hours that straddle a month boundary, prepaid (commit) hours, and additivity over intervals.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  chargeBetween,
  chargeOfItem,
  HOUR_MS,
  hourlyBurn,
  monthBounds,
  prepaidHours,
  startedHours,
  type MeteredItem,
} from './metering.ts';

const MINUTE = 60_000;
const DAY = 24 * HOUR_MS;
const march = Date.UTC(2026, 2, 1); // 31 days: 744 hours
const april = Date.UTC(2026, 3, 1); // 30 days: 720 hours

/** $5.00 a month at the catalog's rate: ⌈5 000 000 / 730⌉ = 6850 micros an hour. */
function item(overrides: Partial<MeteredItem> = {}): MeteredItem {
  return {
    created_at: march,
    removed_at: null,
    amount_hr_micros: 6850,
    amount_mo_micros: 5_000_000,
    prepaid_until: null,
    ...overrides,
  };
}

describe('started hours', () => {
  test('the first hour is started the instant the item exists; each later hour when it begins', () => {
    const it = item({ created_at: march + 17 * MINUTE });
    assert.equal(startedHours(it, it.created_at - 1), 0);
    assert.equal(startedHours(it, it.created_at), 1);
    assert.equal(startedHours(it, it.created_at + HOUR_MS - 1), 1);
    assert.equal(startedHours(it, it.created_at + HOUR_MS), 2);
    assert.equal(startedHours(it, it.created_at + 30 * DAY + 5 * MINUTE), 721);
  });

  test('a removed item stops at its removal; removal exactly on an hour boundary starts no new hour', () => {
    const created = march + 10 * MINUTE;
    assert.equal(startedHours(item({ created_at: created, removed_at: created + 90 * MINUTE }), created + 10 * DAY), 2);
    assert.equal(startedHours(item({ created_at: created, removed_at: created + 2 * HOUR_MS }), created + 10 * DAY), 2);
    assert.equal(
      startedHours(item({ created_at: created, removed_at: created + 2 * HOUR_MS + 1 }), created + 10 * DAY),
      3,
    );
    assert.equal(startedHours(item({ created_at: created, removed_at: created }), created + 10 * DAY), 0);
  });
});

describe('charges', () => {
  test('partial hours are charged as whole started hours', () => {
    const it = item({ created_at: march + 5 * MINUTE, removed_at: march + 5 * MINUTE + 61 * MINUTE });
    assert.equal(chargeOfItem(it, april), 2 * 6850);
  });

  test('the monthly cap applies per calendar month (UTC): a whole 31-day month costs amount_mo, not 744 hours', () => {
    const it = item();
    assert.equal(chargeBetween(it, march, april, april + DAY), 5_000_000);
    // 730 hours × 6850 = 5 000 500 > cap: the 730th hour costs only what is left under the cap.
    assert.equal(chargeOfItem(it, march + 728 * HOUR_MS), 729 * 6850);
    assert.equal(chargeOfItem(it, march + 729 * HOUR_MS), 5_000_000);
    assert.equal(chargeOfItem(it, march + 743 * HOUR_MS), 5_000_000);
    // The cap starts over in April.
    assert.equal(chargeOfItem(it, april), 5_000_000 + 6850);
    // A 30-day April (720 hours) stays under the cap.
    assert.equal(chargeBetween(it, april, Date.UTC(2026, 4, 1), Date.UTC(2026, 5, 1)), 720 * 6850);
  });

  test('an hour that straddles a month boundary is charged once, in the month it began', () => {
    // Created at 00:30, so hour 743 runs from 31 March 23:30 to 1 April 00:30.
    const it = item({ created_at: march + 30 * MINUTE, amount_hr_micros: 1000, amount_mo_micros: 10_000_000 });
    const now = april + 10 * MINUTE;
    assert.equal(startedHours(it, now), 744);
    assert.equal(chargeBetween(it, march, april, now), 744 * 1000);
    assert.equal(chargeBetween(it, april, april + DAY, now), 0);
    assert.equal(chargeOfItem(it, now), 744 * 1000);
    // Twenty minutes later the first hour that begins in April starts.
    assert.equal(chargeBetween(it, april, april + DAY, april + 30 * MINUTE), 1000);
  });

  test('a month-straddling hour counts towards the cap of the month it began in, not the next', () => {
    // Capped item created mid-March: March's hours hit the cap; April's first hour is charged again.
    const it = item({ created_at: march + 30 * MINUTE });
    const now = april + 45 * MINUTE;
    assert.equal(chargeBetween(it, march, april, now), 5_000_000);
    assert.equal(chargeBetween(it, april, april + DAY, now), 6850);
  });

  test('is additive over adjacent intervals, whatever the cut points', () => {
    const it = item({
      created_at: march + 7 * MINUTE,
      removed_at: april + 20 * DAY + 3 * MINUTE,
      prepaid_until: march + 7 * MINUTE + 50 * HOUR_MS,
    });
    const now = april + 40 * DAY;
    const whole = chargeBetween(it, march - DAY, now, now);
    assert.equal(whole, chargeOfItem(it, now));
    for (const cut of [march + 3 * HOUR_MS + 1, march + 20 * DAY + 17 * MINUTE, april - 1, april, april + 13 * DAY]) {
      assert.equal(
        chargeBetween(it, march - DAY, cut, now) + chargeBetween(it, cut, now, now),
        whole,
        `cut at ${new Date(cut).toISOString()}`,
      );
    }
  });

  test('a charge never includes hours that have not begun yet', () => {
    const it = item({ created_at: march + 10 * MINUTE });
    const now = march + 5 * HOUR_MS;
    assert.equal(chargeBetween(it, march, april, now), 5 * 6850); // 00:10, 01:10, … 04:10
    assert.equal(chargeBetween(it, now + 1, april, now), 0);
  });
});

describe('prepaid (commit) hours', () => {
  test('hours paid up front are not charged again; the hours after them are', () => {
    const created = march + 12 * MINUTE;
    const it = item({ created_at: created, prepaid_until: created + 10 * HOUR_MS });
    assert.equal(prepaidHours(it), 10);
    assert.equal(chargeOfItem(it, created + 9 * HOUR_MS + 59 * MINUTE), 0);
    assert.equal(chargeOfItem(it, created + 10 * HOUR_MS), 6850);
    assert.equal(chargeOfItem(it, created + 24 * HOUR_MS + 1), 15 * 6850);
  });

  test('prepaid hours count towards the monthly cap: a month never costs more than amount_mo', () => {
    const it = item({ prepaid_until: march + 100 * HOUR_MS });
    // 744 hours in March, 100 prepaid (worth 685 000): metered = cap − prepaid value.
    assert.equal(chargeBetween(it, march, april, april), 5_000_000 - 100 * 6850);
    // A commit longer than a month covers the next month's first hours too.
    const long = item({ prepaid_until: march + 800 * HOUR_MS });
    assert.equal(chargeBetween(long, march, april, april + 100 * HOUR_MS), 0);
    assert.equal(chargeBetween(long, april, april + 100 * HOUR_MS, april + 100 * HOUR_MS), (100 - 56) * 6850);
  });

  test('the hourly burn is 0 while the current hour is prepaid, and 0 once removed', () => {
    const created = march + 12 * MINUTE;
    const it = item({ created_at: created, prepaid_until: created + 3 * HOUR_MS });
    assert.equal(hourlyBurn(it, created + 2 * HOUR_MS + 59 * MINUTE), 0);
    assert.equal(hourlyBurn(it, created + 3 * HOUR_MS), 6850);
    assert.equal(hourlyBurn(item({ created_at: created, removed_at: created + HOUR_MS }), created + 2 * HOUR_MS), 0);
  });
});

describe('calendar months', () => {
  test('are UTC months, including leap years and year ends', () => {
    assert.deepEqual(monthBounds(Date.UTC(2028, 1, 29, 23, 59)), {
      start: Date.UTC(2028, 1, 1),
      end: Date.UTC(2028, 2, 1),
    });
    assert.deepEqual(monthBounds(Date.UTC(2026, 11, 31, 23, 59, 59, 999)), {
      start: Date.UTC(2026, 11, 1),
      end: Date.UTC(2027, 0, 1),
    });
  });

  test('instants of months asked about in turn each get their own month', () => {
    // The last month is kept: a stale one would answer for an instant outside it.
    const instants = [
      Date.UTC(2026, 10, 30, 23),
      Date.UTC(2026, 11, 1),
      Date.UTC(2026, 10, 1),
      Date.UTC(2026, 9, 31, 23),
    ];
    for (const instant of [...instants, ...instants.reverse()]) {
      const date = new Date(instant);
      assert.deepEqual(monthBounds(instant), {
        start: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1),
        end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1),
      });
    }
  });

  test('are the months Date tells, for any instant from year 1 to 9999', () => {
    // Counted in integers: checked against Date at random instants and at the edges of months.
    const yearOne = new Date(0);
    yearOne.setUTCFullYear(1, 0, 1); // Date.UTC would read year 1 as 1901
    const first = yearOne.getTime();
    const last = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    const expected = (instant: number) => {
      const date = new Date(instant);
      const at = (monthIndex: number) => {
        const bound = new Date(0);
        bound.setUTCFullYear(date.getUTCFullYear(), monthIndex, 1);
        return bound.getTime();
      };
      return { start: at(date.getUTCMonth()), end: at(date.getUTCMonth() + 1) };
    };
    fc.assert(
      fc.property(fc.integer({ min: first, max: last }), fc.integer({ min: -1, max: 1 }), (instant, edge) => {
        // Half the cases: the last instant of a month, the first, or the next.
        const at = instant % 2 === 0 ? expected(instant).start + edge : instant;
        assert.deepEqual(monthBounds(at), expected(at));
      }),
      { numRuns: 20_000 },
    );
  });

  test('a long-lived item is capped in each month separately', () => {
    const it = item({ created_at: Date.UTC(2026, 0, 1) });
    const now = Date.UTC(2027, 0, 1);
    // The seven 31-day months reach the $5 cap; the four 30-day months (720 hours) and
    // February (672 hours) stay under it.
    assert.equal(chargeOfItem(it, now - 1), 7 * 5_000_000 + 4 * 720 * 6850 + 672 * 6850);
  });
});
