// The servers table as the seam reads it (the spec: what the customer and operator asked for) and
// writes it (the status: what the engine reported), named from the schema (src/db/database.ts) so
// that compute does not import src/servers; the servers module uses compute, never the reverse.

import type { Selectable, Updateable } from 'kysely';
import type { Database } from '../db/database.ts';

export type ServerRow = Selectable<Database['servers']>;
export type ServerUpdate = Updateable<Database['servers']>;
