// The one way services run a read-write transaction. On PostgreSQL two transactions can still
// collide although every one takes its locks in the documented order (docs/architecture.md: the
// account, then servers, then what hangs off a server, several rows of one kind in id order): a
// serialization failure (40001) or a deadlock PostgreSQL broke (40P01) rolls the loser back whole.
// The standard answer is to run the whole transaction again, a bounded number of times, after a
// short random pause so the two do not collide again in step. Nothing else is retried. A
// transaction's work must stay inside the database for this to be safe: effects outside it are
// recorded as rows (the outbox, compute jobs) and carried out after the commit.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Platform } from '../platform/context.ts';
import { Unavailable } from '../platform/errors.ts';
import type { Tx } from './database.ts';

/** PostgreSQL's codes for "run the transaction again": serialization_failure, deadlock_detected. */
const retriedCodes = new Set(['40001', '40P01']);
/** Runs of one transaction at most (the first and three more). */
export const transactionAttempts = 4;
/** The pause before run n + 1 is random in [0, min(cap, base · 2^n)) ms ("full jitter"). */
const pauseBaseMs = 10;
const pauseCapMs = 200;

/** True for an error that asks for the whole transaction to be run again. */
export function isRetriedConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && retriedCodes.has(code);
}

/**
 * Runs `work` in a transaction and commits it; on a serialization failure or deadlock runs it
 * again from the start (a fresh transaction), up to `transactionAttempts` times, then answers
 * 503 (retry later) rather than a 500. `work` may run more than once: it must not act outside
 * the database.
 */
export async function transaction<T>(
  ctx: Pick<Platform, 'db' | 'log' | 'metrics'>,
  work: (trx: Tx) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.transaction().execute(work);
    } catch (error) {
      if (!isRetriedConflict(error)) throw error;
      const code = (error as { code: string }).code;
      const outcome = attempt >= transactionAttempts ? 'gave_up' : 'retried';
      ctx.metrics.transactionConflicts.inc({ code, outcome });
      if (outcome === 'gave_up') {
        ctx.log.warn({ err: error, attempts: attempt }, 'transaction conflicted on every attempt; answering 503');
        throw new Unavailable('the database is busy, retry in a moment', 1);
      }
      ctx.log.info({ err: error, attempt }, 'transaction conflicted; retrying');
      // Timing only, never a value anyone sees: not ctx.random, so a pause never shifts a seeded stream.
      await sleep(Math.random() * Math.min(pauseCapMs, pauseBaseMs * 2 ** attempt));
    }
  }
}
