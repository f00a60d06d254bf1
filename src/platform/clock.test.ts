// isoSeconds works the date out by arithmetic: it must agree with Date's own toISOString (to the
// second, with Z) on every day it can write, and leave the rest to Date.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isoSeconds } from './clock.ts';

const dateOwn = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const dayMs = 86_400_000;

test('isoSeconds agrees with Date on every day of 1900 to 2200 and every 13th of years 0000 to 9999', () => {
  const agree = (ms: number) => {
    if (isoSeconds(ms) !== dateOwn(ms)) assert.equal(isoSeconds(ms), dateOwn(ms), `at ${ms}`);
  };
  for (let day = Date.UTC(1900, 0, 1); day < Date.UTC(2200, 0, 1); day += dayMs)
    for (const ms of [day, day + 999, day + 1000, day + 43_210_987, day + dayMs - 1]) agree(ms);
  const last = new Date('9999-12-31T23:59:59.999Z').getTime();
  for (let day = new Date('0000-01-01T00:00:00Z').getTime(); day <= last; day += 13 * dayMs) {
    agree(day);
    agree(day + dayMs - 1);
  }
  agree(last);
});

test('isoSeconds agrees with Date on random instants, leap days and the epoch', () => {
  const fixed = ['1970-01-01T00:00:00Z', '1969-12-31T23:59:59Z', '2000-02-29T12:00:00Z', '1900-03-01T00:00:00Z'];
  for (const text of fixed) assert.equal(isoSeconds(new Date(text).getTime()), text);
  for (let i = 0; i < 100_000; i++) {
    const ms = Math.floor(Math.random() * (253_402_300_800_000 + 62_167_219_200_000)) - 62_167_219_200_000;
    assert.equal(isoSeconds(ms), dateOwn(ms), `at ${ms}`);
  }
});

test("isoSeconds leaves Date's extended years and non-times to Date", () => {
  const later = new Date('+010000-01-01T00:00:00Z').getTime();
  assert.equal(isoSeconds(later), dateOwn(later));
  const earlier = new Date('-000001-12-31T23:59:59Z').getTime();
  assert.equal(isoSeconds(earlier), dateOwn(earlier));
  assert.throws(() => isoSeconds(Number.NaN), RangeError);
});
