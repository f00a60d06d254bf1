// Bandwidth overage, carried out (the decision is overageSteps in overage.ts; the decisions table
// in docs/decisions.md): each round reads the due servers' month usage from the traffic meter
// (src/compute/traffic-meter.ts, on either driver), and where it has reached the server's point:
// - power_off: the server is powered off (event, and a mail saying why); a start is refused while
//   the point is still reached (server-actions.service.ts);
// - throttle: the server's NIC is rate-limited (BANDWIDTH_THROTTLE_RATE) by a network job, and
//   the limit is lifted when usage falls below the point again (a new month, a raised threshold);
// - charge: each whole GB past the point is billed once, at the region's rate.
// Idempotent and safe on several instances: every write is conditional on what the round read.

import type { Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { accountRepository } from '../accounts/account.repository.ts';
import { changes, powerOffBySweep, recordIntent } from '../compute/machine-intents.ts';
import { recordEvent } from '../events/event.service.ts';
import { queueMail } from '../mail/mail.service.ts';
import { letterText } from '../mail/letter.ts';
import { bandwidthOverageItem } from '../billing/pricing.ts';
import { chargeOnce } from '../billing/one-off-charge.ts';
import { catalogOf } from '../catalog/catalog-of.ts';
import { machineFacts } from '../compute/machine-facts.ts';
import { monthBounds } from '../billing/metering.ts';
import { trafficRatePerMs } from '../compute/traffic-meter.ts';
import { effectiveOptions } from './server-options.ts';
import { monthUsageGb } from './month-usage.ts';
import { monthOf, overageOf, overageSteps, type Overage } from './overage.ts';
import type { ServerRow } from './server.table.ts';
import { serverRepository } from './server.repository.ts';
import { transaction } from '../db/transaction.ts';

export interface OverageReport {
  poweredOff: number;
  throttled: number;
  unthrottled: number;
  billedGb: number;
}

/**
 * One round over the servers that are due (servers.overage_due_at ≤ now), a page at a time: a
 * server is marked due when its machine, options or traffic change (compute.repository.ts,
 * server-settings.service.ts, the traffic meter), and each look sets when to look again — the
 * instant its traffic reaches the next point at the rate it moves now — so a round with nothing
 * due costs the same whatever the size of the fleet. The cursor (due time, id) moves past every
 * server read, so one marked again meanwhile waits for the next round.
 */
export async function sweepOverage(ctx: Platform, pageSize = 500): Promise<OverageReport> {
  const report: OverageReport = { poweredOff: 0, throttled: 0, unthrottled: 0, billedGb: 0 };
  const now = ctx.clock.now();
  // Due times are instants (≥ 0): the cursor starts before them all.
  for (let after = { dueAt: -1, id: 0 }; ; ) {
    const rows = await serverRepository.overageDue(ctx.db, now, after, pageSize);
    if (rows.length) await sweepPage(ctx, rows, now, report);
    if (rows.length < pageSize) return report;
    const last = rows.at(-1)!;
    after = { dueAt: Number(last.overage_due_at), id: last.id };
  }
}

async function sweepPage(ctx: Platform, rows: ServerRow[], now: number, report: OverageReport): Promise<void> {
  const usage = await monthUsageGb(ctx, ctx.db, rows);
  for (const row of rows) {
    const usageGb = usage.get(row.uuid) ?? 0;
    const limitGb = catalogOf(ctx, row).plan.bandwidth_gb;
    const overage = overageOf(effectiveOptions(row.options), limitGb, usageGb);
    const month = monthOf(now);
    const billed = row.overage_billed_month === month ? row.overage_billed_gb : 0;
    const { throttle, holdOff, billGb } = overageSteps(overage, billed);
    if (throttle !== (row.throttled === 1)) {
      if (await transaction(ctx, (trx) => setThrottle(ctx, trx, row, throttle, overage, usageGb)))
        report[throttle ? 'throttled' : 'unthrottled']++;
    }
    if (holdOff && row.power === 'running') {
      if (await transaction(ctx, (trx) => powerOff(ctx, trx, row, overage, usageGb))) report.poweredOff++;
    }
    if (billGb > 0)
      report.billedGb += await transaction(ctx, (trx) => charge(ctx, trx, row, month, billed, overage, usageGb));
    // A power-off above marked the server due again (its marks moved): this write then does not land.
    const next = nextLook(ctx, row, limitGb, overage, usageGb, throttle, now);
    await serverRepository.setOverageDue(ctx.db, row.id, Number(row.overage_marks), next);
  }
}

const gib = 1024 ** 3;

/**
 * When the sweep must look at the server again: when its traffic, at the rate the machine moves
 * it now, reaches the next point its policy acts at (the allowance point; for `charge` the next
 * whole GB past it), when a transition under way ends (its traffic is known then), and at the
 * month's end while it is throttled (a new month lifts it). Null
 * when nothing can happen until the server is marked due (stopped, no allowance, or an engine
 * whose counters are read rather than foreseen: the traffic meter marks those servers).
 */
function nextLook(
  ctx: Platform,
  row: ServerRow,
  limitGb: number,
  overage: Overage,
  usageGb: number,
  throttled: boolean,
  now: number,
): number | null {
  const monthEnd = monthBounds(now).end;
  const lift = throttled ? monthEnd : null;
  if (limitGb <= 0) return lift;
  const targetGb = !overage.over
    ? overage.pointGb
    : overage.policy === 'charge'
      ? overage.pointGb + overage.gbOver + 1
      : null;
  if (targetGb === null) return lift;
  // In a transition the machine moves no traffic yet; how it moves once settled is read then.
  if (row.action_until !== null && row.action_until > now)
    return lift === null ? row.action_until : Math.min(row.action_until, lift);
  const perMs = trafficRatePerMs(ctx, machineFacts(ctx, row), now);
  if (perMs <= 0) return lift;
  // A little early rather than late: the usage shown is rounded to the hundredth of a GB.
  const eta = now + Math.max(1000, Math.floor(((targetGb - usageGb - 0.01) * gib) / perMs));
  return lift === null ? eta : Math.min(eta, lift);
}

function overageEvent(ctx: Platform, trx: Tx, row: ServerRow, overage: Overage, usageGb: number, action: string) {
  return recordEvent(ctx, trx, {
    accountId: row.account_id,
    resource: { type: 'server', uuid: row.uuid },
    type: 'server.overage',
    data: {
      policy: overage.policy,
      action,
      usage_gb: usageGb,
      point_gb: overage.pointGb,
      limit_gb: catalogOf(ctx, row).plan.bandwidth_gb,
    },
  });
}

/** Throttles (or lifts the limit of) the server's NIC; the engine applies it through a network job. */
async function setThrottle(
  ctx: Platform,
  trx: Tx,
  row: ServerRow,
  throttle: boolean,
  overage: Overage,
  usageGb: number,
): Promise<boolean> {
  if (!(await serverRepository.setThrottled(trx, row.id, row.throttled, throttle ? 1 : 0, ctx.clock.now())))
    return false;
  await recordIntent(ctx, trx, changes.network(row));
  await overageEvent(ctx, trx, row, overage, usageGb, throttle ? 'throttled' : 'unthrottled');
  return true;
}

/** Powers the server off at once (like out of funds), tells why in an event and a mail. */
async function powerOff(ctx: Platform, trx: Tx, row: ServerRow, overage: Overage, usageGb: number): Promise<boolean> {
  await lockAccount(ctx, trx, row.account_id);
  // Still running when read again under the lock (another round or a customer may have stopped it).
  const running = await serverRepository.findRunningLocked(trx, ctx.dialect, row.id);
  if (!running) return false;
  await powerOffBySweep(ctx, trx, running, 'bandwidth overage');
  await overageEvent(ctx, trx, row, overage, usageGb, 'powered_off');
  const account = await accountRepository.addressee(trx, row.account_id);
  const limit = catalogOf(ctx, row).plan.bandwidth_gb;
  await queueMail(ctx, trx, {
    to: account.email,
    subject: `Your server ${row.name} was powered off: bandwidth allowance reached`,
    text: letterText(account.firstname, [
      `Your server ${row.name} (${row.hostname}, ${row.uuid}) has moved ${usageGb} GB this month; its plan allows ${limit} GB`,
      `and its bandwidth policy (bw_overage_policy power_off, bw_overage_threshold ${effectiveOptions(row.options).bw_overage_threshold}) stops it at ${overage.pointGb} GB.`,
      'We powered it off. It cannot be started again this month unless you raise bw_overage_threshold or',
      'change bw_overage_policy to throttle or charge (option/set); from the first day of next month it starts as usual.',
    ]),
  });
  return true;
}

/** Bills the whole GB past the point not billed yet this month; answers how many. */
async function charge(
  ctx: Platform,
  trx: Tx,
  row: ServerRow,
  month: string,
  billed: number,
  overage: Overage,
  usageGb: number,
): Promise<number> {
  await lockAccount(ctx, trx, row.account_id);
  // Only the round whose update lands bills: the month's count moves from what it read.
  if (!(await serverRepository.claimOverageBilling(trx, row.id, row, month, overage.gbOver))) return 0;
  const gb = overage.gbOver - billed;
  await chargeOnce(
    ctx,
    trx,
    row.account_id,
    row.uuid,
    bandwidthOverageItem(catalogOf(ctx, row).region, gb, billed, row.name),
  );
  await overageEvent(ctx, trx, row, overage, usageGb, 'charged');
  return gb;
}
