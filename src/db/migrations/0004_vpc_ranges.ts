// VPCs: each private /24 is used once per account, held by a unique index rather than by
// the allocation code alone.

import type { Kysely } from 'kysely';

export function vpcRanges() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('vpcs_account_cidr').on('vpcs').columns(['account_id', 'cidr']).unique().execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('vpcs_account_cidr').execute();
    },
  };
}
