// Resource references: every id field and path parameter accepts the integer id or the uuid.

import { randomUUID } from 'node:crypto';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type Ref = { id: number } | { uuid: string };

/** Reads an id-or-uuid reference; null when it is neither (callers answer 404 or 400). */
export function parseRef(value: string | number | null | undefined): Ref | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? { id: value } : null;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (/^\d{1,15}$/.test(trimmed)) return Number(trimmed) > 0 ? { id: Number(trimmed) } : null;
  if (uuidPattern.test(trimmed)) return { uuid: trimmed.toLowerCase() };
  return null;
}

export function newUuid(): string {
  return randomUUID();
}
