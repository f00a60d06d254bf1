// What commands print: aligned tables for people, JSON for scripts (`-o json`), one line on
// stderr for errors.

export type Format = 'table' | 'json';

export interface Column {
  header: string;
  /** A field path (`info.region`) or a function of the row. */
  value: string | ((row: Record<string, unknown>) => unknown);
}

function pick(row: Record<string, unknown>, path: string): unknown {
  let value: unknown = row;
  for (const key of path.split('.')) value = (value as Record<string, unknown> | null | undefined)?.[key];
  return value;
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.map(cell).join(',');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function table(rows: Record<string, unknown>[], columns: Column[]): string {
  const cells = rows.map((row) =>
    columns.map((column) => cell(typeof column.value === 'string' ? pick(row, column.value) : column.value(row))),
  );
  const widths = columns.map((column, i) => Math.max(column.header.length, ...cells.map((line) => line[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((value, i) => (i === values.length - 1 ? value : value.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(columns.map((column) => column.header)), ...cells.map(line)].join('\n')}\n`;
}

/** Key: value lines for one object (nested objects as JSON). */
export function details(row: Record<string, unknown>): string {
  const width = Math.max(...Object.keys(row).map((key) => key.length));
  return `${Object.entries(row)
    .map(([key, value]) => `${key.padEnd(width)}  ${cell(value)}`)
    .join('\n')}\n`;
}

/** A listing keyed by id (`{"101": {...}}`) as rows with their id. */
export function rowsOf(listing: unknown): Record<string, unknown>[] {
  if (Array.isArray(listing)) return listing as Record<string, unknown>[];
  if (listing && typeof listing === 'object')
    return Object.entries(listing as Record<string, Record<string, unknown>>).map(([id, row]) => ({ id, ...row }));
  return [];
}
