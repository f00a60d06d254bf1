// The request journal: the most recent customer requests of this instance in a bounded ring,
// with their bodies, for a developer to see what their client really sent and got back.
// Secrets are masked before anything is kept; nothing is written to storage.

import type { Platform } from '../platform/context.ts';
import { Conflict } from '../platform/errors.ts';

/** One answered request as kept, its bodies masked and bounded (the operator API shapes it for the wire). */
export type JournalEntry = Omit<AnsweredRequest, 'responsePayload'> & {
  /** Clock ms. */
  at: number;
  /** As sent, secrets masked. */
  responseBody: unknown;
};

export interface JournalQuery {
  account?: number;
  /** A path, or a prefix ending in `*`. */
  path?: string;
  status?: number;
  limit?: number;
}

/** Fields whose values open accounts or machines: never kept in the journal. */
const secretField = /pass(word)?|token|secret|api[_-]?key|uuid_activation|activation/i;
/** A body is kept up to this many characters of JSON. */
const bodyLimit = 8_192;

/** A copy of a body with every secret field masked (any depth). */
export function masked(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => masked(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value))
    copy[key] = secretField.test(key) && item !== null && item !== '' ? '***' : masked(item, depth + 1);
  return copy;
}

function bounded(body: unknown): unknown {
  if (body === undefined) return null;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.length > bodyLimit ? `${text.slice(0, bodyLimit)}… (${text.length} characters)` : body;
}

class Ring {
  readonly #entries: (JournalEntry | undefined)[];
  #next = 0;
  constructor(size: number) {
    this.#entries = new Array(size);
  }
  add(entry: JournalEntry): void {
    this.#entries[this.#next] = entry;
    this.#next = (this.#next + 1) % this.#entries.length;
  }
  /** Newest first. */
  *newest(): Generator<JournalEntry> {
    const size = this.#entries.length;
    for (let i = 1; i <= size; i++) {
      const entry = this.#entries[(this.#next - i + size) % size];
      if (entry) yield entry;
    }
  }
}

const rings = new WeakMap<Platform, Ring>();

function ringOf(ctx: Platform): Ring | null {
  if (ctx.config.journalSize === 0) return null;
  let ring = rings.get(ctx);
  if (!ring) {
    ring = new Ring(ctx.config.journalSize);
    rings.set(ctx, ring);
  }
  return ring;
}

export function journalEnabled(ctx: Platform): boolean {
  return ctx.config.journalSize > 0;
}

/** What the HTTP layer hands over once a request is answered. */
export interface AnsweredRequest {
  method: string;
  path: string;
  status: number;
  durationMs: number;
  accountId: number | null;
  requestId: string;
  requestBody: unknown;
  /** The answer as sent (JSON text for API answers). */
  responsePayload: unknown;
}

export function recordRequest(ctx: Platform, answered: AnsweredRequest): void {
  const ring = ringOf(ctx);
  if (!ring) return;
  let response: unknown = answered.responsePayload;
  if (typeof response === 'string') {
    try {
      response = JSON.parse(response);
    } catch {
      // not JSON: kept as text
    }
  }
  ring.add({
    at: ctx.clock.now(),
    method: answered.method,
    path: answered.path,
    status: answered.status,
    durationMs: Math.round(answered.durationMs * 100) / 100,
    accountId: answered.accountId,
    requestId: answered.requestId,
    requestBody: bounded(masked(answered.requestBody)),
    responseBody: bounded(masked(response ?? null)),
  });
}

export function journal(ctx: Platform, query: JournalQuery): JournalEntry[] {
  const ring = ringOf(ctx);
  if (!ring)
    throw new Conflict('the request journal is off: start Nubis with JOURNAL_SIZE set (e.g. 1000) to keep requests');
  const limit = query.limit ?? 100;
  const prefix = query.path?.endsWith('*') ? query.path.slice(0, -1) : null;
  const found: JournalEntry[] = [];
  for (const entry of ring.newest()) {
    if (query.account !== undefined && entry.accountId !== query.account) continue;
    if (query.status !== undefined && entry.status !== query.status) continue;
    if (query.path !== undefined && (prefix !== null ? !entry.path.startsWith(prefix) : entry.path !== query.path))
      continue;
    found.push(entry);
    if (found.length >= limit) break;
  }
  return found;
}
