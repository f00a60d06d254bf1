// Queries on snapshots and backups (one table; a backup is a snapshot of type `backup`).

import type { DialectName, Queryable, Tx } from '../db/database.ts';
import type { Ref } from '../platform/ids.ts';
import type { NewSnapshotRow, SnapshotRow } from './snapshot.table.ts';
import type { ServerRow } from '../servers/server.table.ts';
import { byRef } from '../db/by-ref.ts';

/** A new copy of a server's disk, as a snapshot or the daily backup decides it. */
export interface NewCopy {
  uuid: string;
  /** The server copied: the copy is its owner's, in its region, of its image. */
  server: Pick<ServerRow, 'uuid' | 'account_id' | 'region_id' | 'image_id'>;
  name: string;
  sizeGb: number;
  /** When the copy is taken (processing until then). */
  readyAt: number;
  createdAt: number;
}

/** What a backup adds to a copy: when it is deleted, and the daily slot (epoch day) it fills. */
export interface BackupTerms {
  expiresAt: number;
  slot: number;
}

/** The one mapping of a new copy to its row: a snapshot, or a backup with its terms. */
function copyRow(copy: NewCopy, backup: BackupTerms | null): NewSnapshotRow {
  return {
    uuid: copy.uuid,
    account_id: copy.server.account_id,
    server_uuid: copy.server.uuid,
    region_id: copy.server.region_id,
    image_id: copy.server.image_id,
    type: backup ? 'backup' : 'snapshot',
    name: copy.name,
    size_gb: copy.sizeGb,
    ready_at: copy.readyAt,
    expires_at: backup?.expiresAt ?? null,
    backup_slot: backup?.slot ?? null,
    created_at: copy.createdAt,
  };
}

export const snapshotRepository = {
  /** The owner of a copy still being made (the lock order takes the account first). */
  ownerOfCopy(db: Queryable, uuid: string) {
    return db.selectFrom('snapshots').select('account_id').where('uuid', '=', uuid).executeTakeFirst();
  },

  /** The engine gave up on the copy: failed now, with its reason; undefined when it already ended. */
  markFailed(db: Queryable, uuid: string, reason: string, now: number) {
    return db
      .updateTable('snapshots')
      .set({ failure: reason, ready_at: now })
      .where('uuid', '=', uuid)
      .where('failure', 'is', null)
      .where('ready_at', '>', now)
      .returningAll()
      .executeTakeFirst();
  },

  /** Inserts a snapshot (a copy the customer asked for). */
  insert(db: Queryable, snapshot: NewCopy): Promise<SnapshotRow> {
    return db.insertInto('snapshots').values(copyRow(snapshot, null)).returningAll().executeTakeFirstOrThrow();
  },

  /** Inserts a backup unless its server already has one for the slot; null when it had. */
  async insertBackup(db: Queryable, backup: NewCopy, terms: BackupTerms): Promise<SnapshotRow | null> {
    const inserted = await db
      .insertInto('snapshots')
      .values(copyRow(backup, terms))
      .onConflict((oc) => oc.columns(['server_uuid', 'backup_slot']).doNothing())
      .returningAll()
      .executeTakeFirst();
    return inserted ?? null;
  },

  findOwned(
    db: Queryable,
    accountId: number,
    ref: Ref,
    type?: 'snapshot' | 'backup',
  ): Promise<SnapshotRow | undefined> {
    let query = db.selectFrom('snapshots').selectAll().where('account_id', '=', accountId).where(byRef(ref));
    if (type) query = query.where('type', '=', type);
    return query.executeTakeFirst();
  },

  listForAccount(db: Queryable, accountId: number): Promise<SnapshotRow[]> {
    return db.selectFrom('snapshots').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  },

  async delete(db: Queryable, id: number): Promise<void> {
    await db.deleteFrom('snapshots').where('id', '=', id).execute();
  },

  async deleteBackupsOf(db: Queryable, serverUuid: string): Promise<void> {
    await db.deleteFrom('snapshots').where('server_uuid', '=', serverUuid).where('type', '=', 'backup').execute();
  },

  /**
   * Deletes backups past their expiry; returns the ones this call deleted. On PostgreSQL a backup
   * another transaction holds (its server being removed) is skipped, never waited for: a sweep
   * that waited here, holding the expired rows it already took, could close a circle.
   */
  deleteExpiredBackups(db: Queryable, dialect: DialectName, now: number): Promise<SnapshotRow[]> {
    return db
      .deleteFrom('snapshots')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('snapshots')
          .select('id')
          .where('expires_at', '<=', now)
          .where('type', '=', 'backup')
          .$if(dialect === 'postgres', (q) => q.forUpdate().skipLocked()),
      )
      .returningAll()
      .execute();
  },

  /** Servers with backups on that have no backup for the slot yet, a page at a time. */
  serversDueBackup(db: Queryable, slot: number, afterId: number, limit: number) {
    return db
      .selectFrom('servers')
      .selectAll()
      .where('backup_enabled', '=', 1)
      .where('id', '>', afterId)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('snapshots')
              .select('snapshots.id')
              .whereRef('snapshots.server_uuid', '=', 'servers.uuid')
              .where('snapshots.backup_slot', '=', slot),
          ),
        ),
      )
      .orderBy('id')
      .limit(limit)
      .execute();
  },

  /**
   * The server, locked, if it still has backups on; on PostgreSQL undefined too when another
   * transaction holds it (a later round picks it up).
   */
  lockServerForBackup(dialect: DialectName, trx: Tx, serverId: number) {
    let query = trx.selectFrom('servers').selectAll().where('id', '=', serverId).where('backup_enabled', '=', 1);
    if (dialect === 'postgres') query = query.forNoKeyUpdate().skipLocked();
    return query.executeTakeFirst();
  },
};
