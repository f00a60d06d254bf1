// The traffic meter: each server's bytes per UTC calendar month, accumulated from the deltas of its
// NIC counters and persisted, so a stop and start (the counters restart at 0), a counter reset and
// a restart of Nubis lose nothing already read. Fed by reconciliation (the engine's readings), by
// the engine's report before it stops or restarts a machine, and by every recorded change (the
// driver's last reading); shown as what is stored plus what the driver has read since.

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { monthBounds } from '../billing/metering.ts';
import type { MachineFacts, TrafficCounter } from './compute-driver.ts';
import { type LastReading, type MonthReading, trafficRepository } from './traffic.repository.ts';
import { computeRepository } from './compute.repository.ts';

const gib = 1024 ** 3;

/** Which of a server's traffic counts against its allowance (TRAFFIC_METERED). */
export type TrafficMetered = 'outbound' | 'both';

/**
 * The bytes the meter counts of a NIC's counters: by default only what the server sent, as
 * providers bill it, so nobody can push a server over its allowance (and, with `power_off`, off)
 * by flooding it from outside; `both` adds what it received.
 */
export function meteredBytes(sent: number, received: number, metered: TrafficMetered): number {
  return metered === 'both' ? sent + received : sent;
}

/** Bytes a reading adds to the last one, and from when they were moved; null when it adds nothing. */
export function deltaOf(
  last: LastReading | undefined,
  reading: TrafficCounter,
): { bytes: number; from: number } | null {
  if (last && reading.at < last.read_at) return null; // an older reading than the one kept
  if (last && last.epoch === reading.epoch) {
    if (reading.bytes === last.counter) return null;
    // A counter that went back within one boot was reset by the engine: all it shows now is new.
    return { bytes: reading.bytes > last.counter ? reading.bytes - last.counter : reading.bytes, from: last.read_at };
  }
  // A new boot (or the first reading): its counter counts from its start.
  const from = Math.max(reading.since ?? last?.read_at ?? reading.at, last?.read_at ?? Number.NEGATIVE_INFINITY);
  return { bytes: reading.bytes, from: Math.min(from, reading.at) };
}

/**
 * Bytes moved over [from, to] by calendar month (UTC), shared in proportion to the time each
 * month holds of it (the counters do not say when within it): `visit` hears each month's share,
 * in order, and the shares add up to `bytes`.
 */
function eachMonthShare(bytes: number, from: number, to: number, visit: (monthStart: number, share: number) => void) {
  if (to <= from) return visit(monthBounds(to).start, bytes);
  let remaining = bytes;
  for (let at = from; at < to; ) {
    const { start, end } = monthBounds(at);
    const sliceEnd = Math.min(end, to);
    const share = sliceEnd === to ? remaining : Math.floor((bytes * (sliceEnd - at)) / (to - from));
    visit(start, share);
    remaining -= share;
    at = sliceEnd;
  }
}

/** The shares of bytes moved over [from, to], by calendar month (eachMonthShare). */
export function byMonth(bytes: number, from: number, to: number): { monthStart: number; bytes: number }[] {
  const shares: { monthStart: number; bytes: number }[] = [];
  eachMonthShare(bytes, from, to, (monthStart, share) => shares.push({ monthStart, bytes: share }));
  return shares;
}

/**
 * What byMonth(bytes, from, to) gives the month starting at `monthStart` (0 when none), without
 * building the list: a server/list reads it for every server, and the lists were most of its garbage.
 */
export function monthShare(bytes: number, from: number, to: number, monthStart: number): number {
  let inMonth = 0;
  eachMonthShare(bytes, from, to, (start, share) => {
    if (start === monthStart) inMonth += share;
  });
  return inMonth;
}

/**
 * Adds a reading to the server's meter. A compare-and-set on the kept reading decides races: of
 * two instances feeding the same reading, one adds it. Run it in a transaction (the reading and
 * the month it adds to change together).
 */
export async function recordTraffic(db: Queryable, serverUuid: string, reading: TrafficCounter): Promise<void> {
  const last = await trafficRepository.lastReading(db, serverUuid);
  const delta = deltaOf(last, reading);
  if (!delta && last?.epoch === reading.epoch) return;
  if (last && reading.at < last.read_at) return;
  const next = { epoch: reading.epoch, counter: reading.bytes, read_at: reading.at };
  const claimed = await trafficRepository.replaceReading(db, serverUuid, last, next);
  if (!claimed || !delta || delta.bytes === 0) return;
  for (const share of byMonth(delta.bytes, delta.from, reading.at))
    if (share.bytes !== 0) await trafficRepository.addToMonth(db, serverUuid, share.monthStart, share.bytes);
  // More traffic may have crossed the server's overage point.
  await computeRepository.markOverageDue(db, serverUuid);
}

/**
 * Bytes each machine moved in the calendar month of `now`: what the meter holds plus what the
 * driver has read since (its counters at `now`), by server uuid. The service function other
 * rules (a bandwidth allowance) read the month's usage with. `read`: the machines' readings for
 * that month, when the caller's statement already took them (server.repository.ts).
 */
export async function monthTrafficBytes(
  ctx: Platform,
  db: Queryable,
  machines: readonly MachineFacts[],
  now: number,
  read?: readonly MonthReading[],
): Promise<Map<string, number>> {
  const usage = new Map<string, number>();
  if (machines.length === 0) return usage;
  const { start } = monthBounds(now);
  const rows =
    read ??
    (await trafficRepository.monthReadings(
      db,
      start,
      machines.map((m) => m.uuid),
    ));
  const kept = new Map<string, MonthReading>();
  for (const row of rows) kept.set(row.server_uuid, row);
  for (const machine of machines) {
    const row = kept.get(machine.uuid);
    let bytes = Number(row?.bytes ?? 0);
    const reading = ctx.compute.trafficCounter(machine, now);
    const delta = reading && deltaOf(row, reading);
    if (delta) bytes += monthShare(delta.bytes, delta.from, reading.at, start);
    usage.set(machine.uuid, bytes);
  }
  return usage;
}

/** The month's traffic in GB (GiB, as the engine counts), to the hundredth, by server uuid. */
export async function monthTrafficGb(...asked: Parameters<typeof monthTrafficBytes>): Promise<Map<string, number>> {
  const usage = await monthTrafficBytes(...asked);
  // forEach: no [key, value] pair made for each of a list's servers.
  usage.forEach((bytes, uuid) => {
    usage.set(uuid, Math.round((bytes / gib) * 100) / 100);
  });
  return usage;
}

/**
 * Bytes a millisecond the machine moves now, as its driver foresees it (0 when the driver reads its
 * counters rather than foreseeing them, or the machine is stopped): what the overage sweep plans with.
 */
export function trafficRatePerMs(ctx: Platform, machine: MachineFacts, now: number): number {
  const hour = 3_600_000;
  const from = ctx.compute.trafficCounter(machine, now);
  const to = ctx.compute.trafficCounter(machine, now + hour);
  return from && to && to.epoch === from.epoch ? Math.max(0, (to.bytes - from.bytes) / hour) : 0;
}
