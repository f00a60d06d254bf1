// A drain or restore of a host that the engine gave up on (issue 41's leftover): kept on the host,
// with its reason, until one of them succeeds there, so the operator sees it in the hosts list and
// /metrics rather than in the log alone.

import type { Kysely } from 'kysely';

export function hostWorkFailure() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('hosts').addColumn('failure', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('hosts').dropColumn('failure').execute();
    },
  };
}
