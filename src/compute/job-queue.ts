// Queuing engine work: called inside the API's transaction, so the intent and the job commit (or
// roll back) together. A no-op with a driver that needs no jobs (the simulated one).

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';

/**
 * Records that `action` is wanted on the server's machine. One open job per server and action:
 * asking again refreshes it (attempts start over), so a retried request never doubles the work.
 */
export async function enqueueComputeJob(
  ctx: Platform,
  db: Queryable,
  serverUuid: string,
  action: string,
  payload: Record<string, unknown> = {},
): Promise<void> {
  if (!ctx.compute.engine) return;
  const now = ctx.clock.now();
  const fresh = { payload: JSON.stringify(payload), attempts: 0, run_at: now, locked_until: null, last_error: null };
  await db
    .insertInto('compute_jobs')
    .values({ key: `${serverUuid}:${action}`, server_uuid: serverUuid, action, created_at: now, ...fresh })
    .onConflict((conflict) => conflict.column('key').doUpdateSet(fresh))
    .execute();
}

/** Drops a server's open jobs (it is being removed; only the remove job matters now). */
export async function dropComputeJobs(ctx: Platform, db: Queryable, serverUuid: string): Promise<void> {
  if (!ctx.compute.engine) return;
  await db.deleteFrom('compute_jobs').where('server_uuid', '=', serverUuid).execute();
}
