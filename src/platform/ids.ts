// Resource references: every id field and path parameter accepts the integer id or the uuid.

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type Ref = { id: number } | { uuid: string };

/**
 * The largest id a row can have: ids are 32-bit `serial` columns on PostgreSQL (SQLite's are
 * 64-bit, so both databases share this smaller range). A larger id names nothing: it is
 * answered like a missing one (404), never sent to the database, which would refuse it.
 */
export const MAX_ROW_ID = 2_147_483_647;

function rowId(id: number): Ref | null {
  return Number.isInteger(id) && id > 0 && id <= MAX_ROW_ID ? { id } : null;
}

/** Reads an id-or-uuid reference; null when it is neither or cannot exist (callers answer 404 or 400). */
export function parseRef(value: string | number | null | undefined): Ref | null {
  if (typeof value === 'number') return rowId(value);
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (/^\d{1,15}$/.test(trimmed)) return rowId(Number(trimmed));
  if (uuidPattern.test(trimmed)) return { uuid: trimmed.toLowerCase() };
  return null;
}
