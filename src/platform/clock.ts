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

/** The spec's timestamp shape: YYYY-MM-DDTHH:MM:SSZ. */
export function isoSeconds(ms: number): string {
  // Joined rather than appended (or replaced): V8 makes a flat string of a join but a two-part
  // one of `+`, and JSON.stringify writes only flat strings on its fast path (a list of a
  // thousand servers serialises twice as fast).
  return [new Date(ms).toISOString().slice(0, 19), 'Z'].join('');
}

export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : isoSeconds(ms);
}
