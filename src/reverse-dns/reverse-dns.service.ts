// Publishing reverse DNS: every change of an address's PTR (a server made or removed, rdns/put, a
// floating IP attached, detached or released) is a row of the outbox written in the change's own
// transaction; after the commit it is carried to the DNS server, retried with back-off until it
// lands, so a DNS server that is down loses nothing and holds up no request.

import type { Queryable } from '../db/database.ts';
import { transaction } from '../db/transaction.ts';
import type { Platform } from '../platform/context.ts';
import { afterCommitWork } from '../platform/after-commit.ts';
import { ptrOutboxRepository } from './ptr-outbox.repository.ts';
import type { PtrOutboxRow } from './ptr-outbox.table.ts';
import { ptrPlace } from './reverse-zones.ts';

/**
 * Queues the PTR of a public address: `name` (a host name without its trailing dot), or its
 * removal (null). Nothing is queued when no DNS server is configured: `nubis dns setup` queues
 * every address's PTR once one is.
 */
export async function queuePtr(ctx: Platform, db: Queryable, address: string, name: string | null): Promise<void> {
  if (!ctx.reverseDns) return;
  await ptrOutboxRepository.queue(db, address, name, ctx.clock.now());
}

/** A change in the outbox, as the operator API shows it. */
export interface PtrChange {
  address: string;
  /** The PTR's target; null: the PTR is being removed. */
  name: string | null;
  attempts: number;
  lastError: string | null;
  /** Clock ms of the change and of the next attempt. */
  queuedAt: number;
  nextAttemptAt: number;
}

/** The changes not yet on the DNS server, oldest first (at most 1000). */
export async function listPtrQueue(ctx: Platform): Promise<PtrChange[]> {
  const rows = await ptrOutboxRepository.pending(ctx.db, 1000);
  return rows.map((row) => ({
    address: row.address,
    name: row.name,
    attempts: row.attempts,
    lastError: row.last_error,
    queuedAt: row.updated_at,
    nextAttemptAt: row.next_attempt_at ?? row.updated_at,
  }));
}

/** Back-off after the n-th failed attempt: 30 s doubling, at most an hour; never given up. */
function backoffMs(attempts: number): number {
  return Math.min(3600_000, 30_000 * 2 ** Math.min(attempts - 1, 10));
}

/** Carries one change to the DNS server, creating its zone first when it is missing. */
async function publish(ctx: Platform, row: PtrOutboxRow): Promise<void> {
  const server = ctx.reverseDns!;
  const place = ptrPlace(ctx.catalog, row.address);
  if (await server.setPtr(place.zone.name, place.name, row.name)) return;
  // A removal from a zone that does not exist is done already.
  if (row.name === null) return;
  // IPv6 zones are one per /64 block, made when the block's first PTR is; an IPv4 zone missing
  // means `nubis dns setup` has not run, and making it here is what setup would do.
  await server.ensureZone(place.zone);
  if (!(await server.setPtr(place.zone.name, place.name, row.name)))
    throw new Error(`zone ${place.zone.name} is still missing after it was created`);
}

/**
 * Publishes due changes. Safe on several instances at once: on PostgreSQL each batch is claimed
 * with FOR UPDATE SKIP LOCKED and pushed to its next attempt before the DNS server is called; an
 * outcome counts only for the change it carried (a newer one queued meanwhile runs next).
 */
export async function publishPendingPtrs(ctx: Platform, batch = 50): Promise<number> {
  if (!ctx.reverseDns) return 0;
  const now = ctx.clock.now();
  const claimed = await transaction(ctx, async (trx) => {
    const rows = await ptrOutboxRepository.due(ctx.dialect, trx, now, batch);
    for (const row of rows)
      await ptrOutboxRepository.attempted(trx, row.address, row.attempts + 1, now + backoffMs(row.attempts + 1));
    return rows;
  });
  let published = 0;
  for (const row of claimed) {
    try {
      await publish(ctx, row);
      await ptrOutboxRepository.published(ctx.db, row);
      published++;
    } catch (error) {
      const message = (error as Error).message;
      ctx.log.warn(
        { address: row.address, attempt: row.attempts + 1, err: message },
        'reverse DNS not published; will retry',
      );
      await ptrOutboxRepository.failed(ctx.db, row, message.slice(0, 500));
    }
  }
  return published;
}

const publishing = afterCommitWork('reverse DNS', (ctx) => publishPendingPtrs(ctx));

/**
 * Starts publishing due changes now, without waiting: called after a transaction that queued
 * one commits. A failure is left to the sweep's retries; it never reaches the caller.
 */
export function kickPtrPublishing(ctx: Platform): void {
  if (ctx.reverseDns) publishing.kick(ctx);
}

/** Waits for the rounds kickPtrPublishing started (at shutdown, before storage closes). */
export function settlePtrPublishing(ctx: Platform): Promise<void> {
  return publishing.settle(ctx);
}
