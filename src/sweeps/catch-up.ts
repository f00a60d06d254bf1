// The virtual clock's catch-up: when the clock jumps from `from` to `to`, the periodic work that
// real time would have done in between runs before the advance answers, each piece at the instant
// it would have run (a frozen clock), so the result is the one real time would have left: a
// backup for every day passed (named by its day, created at the start of the day or when the
// server finished provisioning, and deleted when its retention ends), the out-of-funds actions
// at the instant the balance reached zero, every mail retry whose back-off came due, and the
// monthly invoice documents on the first of each month.
//
// The sweeps stay idempotent with unique slots, so another instance's sweeper running meanwhile
// (at its own, earlier, time) changes nothing; the clock's advance lease keeps two advances apart.

import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { settingsRepository } from '../settings/settings.repository.ts';
import type { Platform } from '../platform/context.ts';
import { Conflict, Invalid } from '../platform/errors.ts';
import { FrozenClock, isoSeconds, lastInstantMs, VirtualClock } from '../platform/clock.ts';
import { outOfFundsAt } from '../billing/ledger.ts';
import { billingRepository } from '../billing/billing.repository.ts';
import { catchUpRepository } from './catch-up.repository.ts';
import { monthBounds } from '../billing/metering.ts';
import { recordDueEvents } from '../events/event.service.ts';
import { kickWebhookDelivery } from '../events/webhook.service.ts';
import { runSweepRound } from './sweeps.ts';
import { ptrOutboxRepository } from '../reverse-dns/ptr-outbox.repository.ts';

const dayMs = 86_400_000;
/** A bound on sweep rounds for one advance (each is one of the instants above); far above any real need. */
const maxRounds = 20_000;

/** Runs the sweep rounds due in [from, to]; answers how many rounds ran. */
export async function catchUp(ctx: Platform, from: number, to: number): Promise<number> {
  // No credit arrives during the jump, so each account's balance only falls: the instant it
  // reaches zero is known from the start.
  const outOfFunds = await outOfFundsInstants(ctx, from, to);
  let at = from;
  let rounds = 0;
  for (;;) {
    await runSweepRound({ ...ctx, clock: new FrozenClock(at) });
    rounds++;
    if (at >= to || rounds >= maxRounds) break;
    at = await nextDue(ctx, at, to, outOfFunds);
  }
  if (rounds >= maxRounds) ctx.log.warn({ from, to, rounds }, 'clock catch-up stopped at its round limit');
  return rounds;
}

/** The next instant in (at, to] when a sweep has something to do; `to` when nothing comes due before. */
async function nextDue(ctx: Platform, at: number, to: number, outOfFunds: number[]): Promise<number> {
  const candidates: number[] = [to, ...outOfFunds];

  // Backups: the start of each UTC day (the day's slot); a backup of a day that ends its retention
  // before `to` would be deleted again, so only the days it can survive are visited.
  const retentionMs = ctx.config.backupRetentionDays * dayMs;
  const nextDay = (Math.floor(at / dayMs) + 1) * dayMs;
  candidates.push(Math.max(nextDay, (Math.floor((to - retentionMs) / dayMs) - 1) * dayMs));
  // …and the moment a server with backups on finishes provisioning (its first backup is due then).
  const provisioned = await catchUpRepository.nextProvisioningEnd(ctx.db, at);
  if (provisioned !== null) candidates.push(provisioned);
  // The first of each month: the month's invoice documents are issued then.
  candidates.push(monthBounds(at).end);
  // Mail retries whose back-off comes due.
  if (ctx.mailTransport) {
    const mail = await catchUpRepository.nextMailRetry(ctx.db, at);
    if (mail !== null) candidates.push(mail);
  }
  // Reverse DNS retries whose back-off comes due.
  if (ctx.reverseDns) {
    const ptr = await ptrOutboxRepository.nextAttempt(ctx.db, at);
    if (ptr !== null) candidates.push(ptr);
  }

  return Math.max(at + 1, Math.min(...candidates.filter((t) => t > at)));
}

/** The instant each billed account not yet marked out of funds reaches a zero balance in (from, to]. */
async function outOfFundsInstants(ctx: Platform, from: number, to: number): Promise<number[]> {
  const instants: number[] = [];
  for (const accountId of await billingRepository.billedUnmarked(ctx.db)) {
    const zero = await outOfFundsAt(ctx.db, accountId, from, to);
    if (zero !== null && zero > from) instants.push(zero);
  }
  return instants;
}

/**
 * Moves the shared virtual clock forward and runs the work due in the interval before answering.
 * Other instances (and their sweepers) keep the old time until the work is done and the new
 * offset is stored, so none of them takes a day's backup at the wrong instant; a lease in the
 * settings table keeps two advances (on any instances) one after the other.
 */
/** Answers the clock's new time (clock ms). */
export async function advanceClock(ctx: Platform, seconds: number): Promise<{ now: number }> {
  const clock = ctx.clock;
  if (!(clock instanceof VirtualClock))
    throw new Conflict('the clock is the system clock: start with CLOCK=virtual to move it');
  const stepMs = Math.round(seconds * 1000);
  const release = await acquireAdvanceLease(ctx);
  try {
    await clock.refresh();
    const from = clock.now();
    if (from + stepMs > lastInstantMs)
      throw new Invalid(
        'seconds',
        `would move the clock past ${isoSeconds(lastInstantMs)}, the last time the API can show: at most ${Math.floor((lastInstantMs - from) / 1000)} from now`,
      );
    await catchUp(ctx, from, from + stepMs);
    const offset = clock.offset() + stepMs;
    await settingsRepository.set(ctx.db, 'clock_offset_ms', String(offset));
    clock.setOffset(offset);
    // What the jump brought about (transitions ended, snapshots completed) is an event before the answer.
    await recordDueEvents(ctx);
  } finally {
    await release();
  }
  // Webhook retries wait on the clock too.
  kickWebhookDelivery(ctx, [0]);
  return { now: clock.now() };
}

const leaseKey = 'clock_advance_lease';
/** Real-time milliseconds a lease lasts when its holder dies mid-advance. */
const leaseMs = 10 * 60_000;

/** Takes the advance lease (a row holding `<owner> <expiry>`), waiting while another holds it. */
async function acquireAdvanceLease(ctx: Platform): Promise<() => Promise<void>> {
  const owner = randomUUID();
  for (;;) {
    const value = `${owner} ${Date.now() + leaseMs}`;
    if (await settingsRepository.setIfAbsent(ctx.db, leaseKey, value))
      return () => settingsRepository.removeIfValue(ctx.db, leaseKey, value);
    const held = await settingsRepository.get(ctx.db, leaseKey);
    if (held !== undefined && Number(held.split(' ')[1]) < Date.now())
      await settingsRepository.removeIfValue(ctx.db, leaseKey, held);
    else await sleep(20);
  }
}
