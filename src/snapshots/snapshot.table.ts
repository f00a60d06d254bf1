// Row type of snapshots and backups (one table: a backup is a snapshot with type `backup`).

import type { Generated, Insertable, Selectable } from 'kysely';

export interface SnapshotTable {
  id: Generated<number>;
  uuid: string;
  account_id: number;
  /** uuid of the server it was taken from (kept after the server is removed). */
  server_uuid: string;
  region_id: number;
  image_id: number;
  type: string;
  name: string;
  size_gb: number;
  /** `processing` until this instant, `completed` after (unless it failed). */
  ready_at: number;
  /** Why the engine gave up on the copy (status `failed`), or null. */
  failure: string | null;
  expires_at: number | null;
  /** For backups: the daily slot (epoch day) it fills; unique per server so a sweep run twice makes one. */
  backup_slot: number | null;
  created_at: number;
}

export type SnapshotRow = Selectable<SnapshotTable>;
export type NewSnapshotRow = Insertable<SnapshotTable>;
