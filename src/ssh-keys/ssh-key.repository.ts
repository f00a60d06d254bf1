// Queries on the ssh_keys table. The unique (account_id, fingerprint) index is what keeps
// one account from storing the same key twice, even under concurrent creates.

import type { Queryable } from '../db/database.ts';
import type { Ref } from '../platform/ids.ts';
import { prepared } from '../db/prepared.ts';
import type { NewSshKeyRow, SshKeyRow } from './ssh-key.table.ts';
import { byRef } from '../db/by-ref.ts';

/** A new key of an account, parsed and fingerprinted; newSshKeyRow makes its row. */
export interface NewSshKey {
  uuid: string;
  accountId: number;
  name: string;
  /** The OpenSSH public key line, as parsed. */
  publicKey: string;
  keyType: string;
  fingerprint: string;
  createdAt: number;
}

/** The one mapping of a new key to its row. */
function newSshKeyRow(key: NewSshKey): Required<Omit<NewSshKeyRow, 'id'>> {
  return {
    uuid: key.uuid,
    account_id: key.accountId,
    name: key.name,
    public_key: key.publicKey,
    key_type: key.keyType,
    fingerprint: key.fingerprint,
    created_at: key.createdAt,
  };
}

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
  insertUnlessDuplicate(db: Queryable, key: NewSshKey) {
    return db
      .insertInto('ssh_keys')
      .values(newSshKeyRow(key))
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
