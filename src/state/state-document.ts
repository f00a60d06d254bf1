// The state document: a versioned file the operator keeps and loads on any Nubis, and what a
// named save stores. It is a wire shape of its own (like an API answer), so its envelope —
// the format, the version, the export time as text — is written and read here, not in the service.

import { isoSeconds, lastInstantMs, representable } from '../platform/clock.ts';
import { Invalid } from '../platform/errors.ts';

export const stateFormat = 'nubis-state';
export const stateVersion = 1;

export type Cell = string | number | null;
export type Rows = Record<string, Cell>[];

export interface StateDocument {
  format: typeof stateFormat;
  version: typeof stateVersion;
  /** The migrations of the schema the rows follow, in the order they ran. */
  migrations: string[];
  exported: string;
  clock: { mode: string; offset_ms: number };
  tables: Record<string, Rows>;
}

export interface StateContent {
  migrations: string[];
  /** Clock ms. */
  exportedAt: number;
  clock: { mode: string; offsetMs: number };
  tables: Record<string, Rows>;
}

export function stateDocument(content: StateContent): StateDocument {
  return {
    format: stateFormat,
    version: stateVersion,
    migrations: content.migrations,
    exported: isoSeconds(content.exportedAt),
    clock: { mode: content.clock.mode, offset_ms: content.clock.offsetMs },
    tables: content.tables,
  };
}

/** The document sent or saved, its envelope checked (its cells are checked against the live columns). */
export function asDocument(input: unknown): StateDocument {
  const document = input as Partial<StateDocument> | null;
  if (!document || document.format !== stateFormat) throw new Invalid('format', `must be "${stateFormat}"`);
  if (document.version !== stateVersion)
    throw new Invalid('version', `this Nubis reads version ${stateVersion} documents`);
  // The clock it brings must show times the spec can write (see platform/clock.ts).
  const offset = document.clock?.offset_ms;
  if (typeof offset !== 'number' || !representable(Date.now() + offset))
    throw new Invalid(
      'clock.offset_ms',
      `must put the clock between ${isoSeconds(0)} and ${isoSeconds(lastInstantMs)}`,
    );
  return document as StateDocument;
}
