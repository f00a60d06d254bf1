// Queuing engine work: called inside the API's transaction, so the intent and the job commit (or
// roll back) together. A no-op with a driver that needs no jobs (the simulated one).

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';

/**
 * Records that `action` is wanted on the server's machine. One waiting job per server and action
 * (key `<uuid>:<action>`, and the snapshot for work on one: two snapshots are two copies):
 * asking again replaces it at the back of the server's line, so a retried request never doubles
 * the work and a server's jobs run in the order they were asked for. A job being performed has
 * its key suffixed with its id, so a new one may wait behind it.
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
  const key = `${serverUuid}:${action}${typeof payload.snapshot === 'string' ? `:${payload.snapshot}` : ''}`;
  await db.deleteFrom('compute_jobs').where('key', '=', key).execute();
  await db
    .insertInto('compute_jobs')
    .values({
      key,
      server_uuid: serverUuid,
      action,
      payload: JSON.stringify(payload),
      attempts: 0,
      run_at: now,
      locked_until: null,
      last_error: null,
      created_at: now,
    })
    .execute();
}

/**
 * The engine's copy of a snapshot or backup goes (it was removed, or its retention ended). Queued
 * in the line of the server it was taken from, behind the job that makes the copy, so a copy still
 * being taken is made and then deleted rather than left behind.
 */
export function enqueueForgetImage(
  ctx: Platform,
  db: Queryable,
  image: { uuid: string; server_uuid: string },
): Promise<void> {
  return enqueueComputeJob(ctx, db, image.server_uuid, 'forget-snapshot', { snapshot: image.uuid });
}

/**
 * Drops a server's waiting jobs (it is being removed; only the remove job matters now). One being
 * performed stays, and the remove waits behind it, so nothing is made after it was deleted. Work
 * on snapshots stays too: a snapshot outlives its server (its copy is taken before the remove) and
 * a forgotten copy must still go.
 */
export async function dropComputeJobs(ctx: Platform, db: Queryable, serverUuid: string): Promise<void> {
  if (!ctx.compute.engine) return;
  await db
    .deleteFrom('compute_jobs')
    .where('server_uuid', '=', serverUuid)
    .where('action', 'not in', ['snapshotting', 'forget-snapshot'])
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', Date.now())]))
    .execute();
}
