// Queuing engine work: called by the seam's entry point (machine-intents.ts) inside the caller's
// transaction, so the intent and its job commit (or roll back) together. Only with an engine.

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { type Artifact, convergeJob, type HostJob, type JobAction, outlivingServer } from './compute-driver.ts';
import { computeRepository } from './compute.repository.ts';

/** The line an artifact's job waits in: its server's (a VPC's network: the VPC's own). */
export function lineOf(artifact: Artifact): string {
  return 'vpc' in artifact ? artifact.vpc : artifact.server;
}

/**
 * One waiting job per line and action (and snapshot: two snapshots are two copies): asking again
 * replaces it at the back of the line, so a retried request never doubles the work and a line's
 * jobs run in the order they were asked for. A job being performed has its key suffixed with its
 * id, so a new one may wait behind it.
 */
async function enqueue(
  ctx: Platform,
  db: Queryable,
  line: string,
  action: JobAction,
  artifact: Artifact | { host: string } | null,
): Promise<void> {
  const now = ctx.clock.now();
  const key = `${line}:${action}${artifact && 'snapshot' in artifact ? `:${artifact.snapshot}` : ''}`;
  await computeRepository.replaceJob(db, { key, line, action, subject: artifact, queuedAt: now });
}

/** The server's machine is to be converged to its spec as it will be read when the job runs. */
export function queueConverge(ctx: Platform, db: Queryable, serverUuid: string): Promise<void> {
  return enqueue(ctx, db, serverUuid, convergeJob, null);
}

/**
 * An artifact is to be made or forgotten. A forgotten image waits in the line of the server it
 * was taken from, behind the job that makes it, so a copy still being taken is made and then
 * deleted rather than left behind.
 */
export function queueArtifact(ctx: Platform, db: Queryable, artifact: Artifact): Promise<void> {
  return enqueue(ctx, db, lineOf(artifact), artifact.kind, artifact);
}

/** The line a host's jobs wait in (apart from every server's). */
export function hostLine(name: string): string {
  return `host:${name}`;
}

/** A host is to be evacuated or restored by the engine (one waiting job per host and action). */
export function queueHostJob(ctx: Platform, db: Queryable, action: HostJob, host: string): Promise<void> {
  return enqueue(ctx, db, hostLine(host), action, { host });
}

/**
 * Drops a server's waiting jobs (it is being removed; only its removal matters now). One being
 * performed stays, and the removal waits behind it, so nothing is made after it was deleted. Work
 * on images stays too: a snapshot outlives its server (its copy is taken before the removal) and
 * a forgotten copy must still go.
 */
export async function dropWaitingJobs(db: Queryable, serverUuid: string): Promise<void> {
  await computeRepository.dropWaitingJobs(db, serverUuid, [...outlivingServer], Date.now());
}
