// Queries on the ssh_keys table.

import type { Queryable } from '../db/database.ts';
import type { Ref } from '../platform/ids.ts';

export const sshKeyRepository = {
  findOwned(db: Queryable, accountId: number, ref: Ref) {
    let query = db.selectFrom('ssh_keys').selectAll().where('account_id', '=', accountId);
    query = 'id' in ref ? query.where('id', '=', ref.id) : query.where('uuid', '=', ref.uuid);
    return query.executeTakeFirst();
  },
};
