// The one clock: every timestamp Nubis writes or derives comes from here, so moving the
// virtual clock moves provisioning, billing and backups consistently.

export interface Clock {
  readonly mode: 'system' | 'virtual';
  /** Milliseconds since the epoch. */
  now(): number;
  /** Moves a virtual clock forward; a system clock refuses. */
  advance(seconds: number): number;
  /** The offset of a virtual clock from real time, in ms (0 for a system clock). */
  offset(): number;
  /** Re-reads a shared virtual clock's offset from storage (every instance moves together); a no-op otherwise. */
  refresh(): Promise<void>;
}

export class SystemClock implements Clock {
  readonly mode = 'system';
  now(): number {
    return Date.now();
  }
  advance(): number {
    throw new Error('the system clock cannot be moved');
  }
  offset(): number {
    return 0;
  }
  async refresh(): Promise<void> {}
}

/**
 * The instants the spec's timestamps (`YYYY-MM-DDTHH:MM:SSZ`) can show: from the epoch to the
 * last second of year 9999. The virtual clock stays inside them (an advance past the end is
 * refused, an imported offset outside is refused); past the end a timestamp would need a sixth
 * digit of year and, further on, could not be written at all.
 */
export const firstInstantMs = 0;
export const lastInstantMs = Date.UTC(9999, 11, 31, 23, 59, 59);

/** Whether `ms` is an instant the clock may show. */
export function representable(ms: number): boolean {
  return Number.isSafeInteger(ms) && ms >= firstInstantMs && ms <= lastInstantMs;
}

/**
 * Real time plus an offset: time keeps flowing (so a server still finishes provisioning
 * while a test waits), and `advance` jumps ahead by any amount. With `load`, the offset lives in
 * storage, shared by every instance: `refresh` (before each request and sweep round) reads it.
 * With an `origin` (a seeded emulator) it is that instant plus the offset instead: time stands
 * still until advanced, so no answer depends on how fast the requests came.
 */
export class VirtualClock implements Clock {
  readonly mode = 'virtual';
  #offsetMs: number;
  readonly #load: (() => Promise<number | undefined>) | undefined;
  readonly #origin: number | undefined;
  constructor(offsetMs = 0, load?: () => Promise<number | undefined>, origin?: number) {
    this.#offsetMs = offsetMs;
    this.#load = load;
    this.#origin = origin;
  }
  async refresh(): Promise<void> {
    const stored = await this.#load?.();
    if (stored !== undefined) this.#offsetMs = stored;
  }
  now(): number {
    // Real time keeps flowing after an advance to the very end: the clock stops there instead.
    return Math.min((this.#origin ?? Date.now()) + this.#offsetMs, lastInstantMs);
  }
  advance(seconds: number): number {
    this.#offsetMs += Math.round(seconds * 1000);
    return this.now();
  }
  offset(): number {
    return this.#offsetMs;
  }
  setOffset(offsetMs: number): void {
    this.#offsetMs = offsetMs;
  }
}

/** A clock stopped at one instant: the virtual clock's catch-up runs the sweeps as they would have run then. */
export class FrozenClock implements Clock {
  readonly mode = 'virtual';
  readonly #at: number;
  constructor(at: number) {
    this.#at = at;
  }
  now(): number {
    return this.#at;
  }
  advance(): number {
    throw new Error('a frozen clock does not move');
  }
  offset(): number {
    return 0;
  }
  async refresh(): Promise<void> {}
}

/** "00" to "99". */
const twoDigits = Array.from({ length: 100 }, (_, i) => (i < 10 ? `0${i}` : `${i}`));
const dayMs = 86_400_000;

/**
 * The proleptic Gregorian date of the day `days` after 1970-01-01, as Date counts days: by whole
 * 400-year eras of 146,097 days from 0000-03-01, the year taken to start in March so that the
 * leap day ends it (H. Hinnant's civil_from_days). Month 1–12.
 */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Days from 1970-01-01 to the date (month 1–12), as civilFromDays counts them (H. Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/**
 * The spec's timestamp shape: YYYY-MM-DDTHH:MM:SSZ. Every answer shows several (a list of a
 * thousand servers, thousands), so the date is worked out by arithmetic (civilFromDays):
 * Date's toISOString costs four times as much. Outside the years 0000–9999 (an extended year,
 * or not a time at all) it is Date's own.
 */
export function isoSeconds(ms: number): string {
  const days = Math.floor(ms / dayMs);
  const { year, month, day } = civilFromDays(days);
  if (!(year >= 0 && year <= 9999)) return `${new Date(ms).toISOString().slice(0, 19)}Z`;
  const seconds = Math.floor((ms - days * dayMs) / 1000);
  const text = `${twoDigits[Math.floor(year / 100)]}${twoDigits[year % 100]}-${twoDigits[month]}-${twoDigits[day]}T${twoDigits[Math.floor(seconds / 3600)]}:${twoDigits[Math.floor(seconds / 60) % 60]}:${twoDigits[seconds % 60]}Z`;
  // Read once so V8 makes it one flat string (a template makes a rope): JSON.stringify writes
  // only flat strings on its fast path (a list of a thousand servers serialises twice as fast).
  text.charCodeAt(0);
  return text;
}

export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : isoSeconds(ms);
}
