// Row type of a named saved state: a whole-state document kept on the server for fast resets.

export interface SavedStateTable {
  name: string;
  /** The JSON export document (see state.service.ts). */
  document: string;
  created_at: number;
}
