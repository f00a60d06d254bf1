// Queries on VPCs and their members.

import type { Queryable } from '../db/database.ts';
import type { Ref } from '../platform/ids.ts';

export const vpcRepository = {
  findOwned(db: Queryable, accountId: number, ref: Ref) {
    let query = db.selectFrom('vpcs').selectAll().where('account_id', '=', accountId);
    query = 'id' in ref ? query.where('id', '=', ref.id) : query.where('uuid', '=', ref.uuid);
    return query.executeTakeFirst();
  },
};
