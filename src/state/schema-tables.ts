// The tables of the live schema that a saved state holds (db/live-tables.ts reads the catalog),
// so whole-state export and import include a table a later migration adds without being told,
// and insert parents before children on either database.

import type { Queryable, DialectName } from '../db/database.ts';
import { type LiveTable, liveTables } from '../db/live-tables.ts';

/** Bookkeeping, emulator configuration and the operator audit log: not part of a saved state. */
export const tablesOutsideState = new Set([
  'kysely_migration',
  'kysely_migration_lock',
  'saved_states',
  'fault_rules',
  'operator_audit',
]);

export type StateTable = LiveTable;

/** The tables a saved state holds, each after the tables it references. */
export async function stateTables(db: Queryable, dialect: DialectName): Promise<StateTable[]> {
  return parentsFirst((await liveTables(db, dialect)).filter((table) => !tablesOutsideState.has(table.name)));
}

/** Orders tables so that every table comes after the tables it references. */
function parentsFirst(tables: StateTable[]): StateTable[] {
  const byName = new Map(tables.map((table) => [table.name, table]));
  const ordered: StateTable[] = [];
  const placed = new Set<string>();
  const visit = (table: StateTable, path: Set<string>) => {
    if (placed.has(table.name) || path.has(table.name)) return;
    path.add(table.name);
    for (const parent of table.references) {
      const parentTable = byName.get(parent);
      if (parentTable) visit(parentTable, path);
    }
    placed.add(table.name);
    ordered.push(table);
  };
  for (const table of [...tables].sort((a, b) => a.name.localeCompare(b.name))) visit(table, new Set());
  return ordered;
}
