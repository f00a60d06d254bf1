// The catch-up's questions of storage: when the next thing a sweep acts on comes due after an
// instant (a server with backups finishing provisioning, a mail retry).

import type { Queryable } from '../db/database.ts';
import { provisioningTransition } from '../compute/power-state.ts';

export const catchUpRepository = {
  /** When the first server with backups on that is provisioning after `at` finishes, if any. */
  async nextProvisioningEnd(db: Queryable, at: number): Promise<number | null> {
    const row = await db
      .selectFrom('servers')
      .select((eb) => eb.fn.min<number>('action_until').as('at'))
      .where('backup_enabled', '=', 1)
      .where('action', '=', provisioningTransition)
      .where('action_until', '>', at)
      .executeTakeFirst();
    return row?.at != null ? Number(row.at) : null;
  },

  /** When the first undelivered mail is retried after `at`, if any. */
  async nextMailRetry(db: Queryable, at: number): Promise<number | null> {
    const row = await db
      .selectFrom('mail_outbox')
      .select((eb) => eb.fn.min<number>('next_attempt_at').as('at'))
      .where('delivered_at', 'is', null)
      .where('next_attempt_at', '>', at)
      .executeTakeFirst();
    return row?.at != null ? Number(row.at) : null;
  },
};
