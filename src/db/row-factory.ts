// Row objects of one fast shape from arrays of values: an object literal of the columns, made
// once per column list. Objects built property by property (as node:sqlite's own rows, or
// Object.fromEntries) end in dictionary mode: slow to build, and every read on them is a hash
// look-up; one shape halves the cost of reading many rows and of everything that reads them.

/** Builds objects keyed by `columns` from value arrays in that order. */
export function rowFactory<R = Record<string, unknown>>(columns: readonly string[]): (values: unknown[]) => R {
  // Column names go in as JSON string literals, so any name is safe (but `__proto__`, which a
  // literal would take as the prototype: callers keep such rows as they are).
  const fields = columns.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
  return new Function('values', `return { ${fields.join(', ')} };`) as (values: unknown[]) => R;
}
