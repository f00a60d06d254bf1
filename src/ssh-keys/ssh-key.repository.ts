// Queries on the ssh_keys table. The unique (account_id, fingerprint) index is what keeps
// one account from storing the same key twice, even under concurrent creates.

import type { Insertable } from 'kysely';
import type { Queryable } from '../db/database.ts';
import type { Ref } from '../platform/ids.ts';
import { prepared } from '../db/prepared.ts';
import type { SshKeyRow, SshKeyTable } from './ssh-key.table.ts';
import { byRef } from '../db/by-ref.ts';

// The list is a hot read: prepared once (src/db/prepared.ts).
const listOfAccount = prepared<[number], SshKeyRow>(1, (db, accountId) =>
  db.selectFrom('ssh_keys').selectAll().where('account_id', '=', accountId).orderBy('id'),
);

export const sshKeyRepository = {
  findOwned(db: Queryable, accountId: number, ref: Ref) {
    return db
      .selectFrom('ssh_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where(byRef(ref))
      .executeTakeFirst();
  },

  listByAccount(db: Queryable, accountId: number) {
    return listOfAccount.all(db, accountId);
  },

  findByFingerprint(db: Queryable, accountId: number, fingerprint: string) {
    return db
      .selectFrom('ssh_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('fingerprint', '=', fingerprint)
      .executeTakeFirst();
  },

  /** Inserts the key unless the account already holds one with its fingerprint; undefined then. */
  insertUnlessDuplicate(db: Queryable, row: Insertable<SshKeyTable>) {
    return db
      .insertInto('ssh_keys')
      .values(row)
      .onConflict((oc) => oc.columns(['account_id', 'fingerprint']).doNothing())
      .returningAll()
      .executeTakeFirst();
  },

  rename(db: Queryable, id: number, name: string) {
    return db.updateTable('ssh_keys').set({ name }).where('id', '=', id).execute();
  },

  /** Deletes the row; false when it was already gone (a concurrent remove won). */
  async remove(db: Queryable, id: number): Promise<boolean> {
    const result = await db.deleteFrom('ssh_keys').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },
};
