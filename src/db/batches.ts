// Both databases cap the values one statement may bind (SQLite 32,766; PostgreSQL 65,535), so a
// list that grows with the fleet or the data (every server's uuid, a saved state's rows) is read or
// written in batches that stay below the cap.

/** Values one statement binds at most here: below both caps, with room for a query's own. */
export const maxBoundValues = 30_000;

/** `values` in consecutive batches of at most `size` (none for an empty list). */
export function* batches<T>(values: readonly T[], size: number): Generator<T[]> {
  for (let first = 0; first < values.length; first += size) yield values.slice(first, first + size);
}
