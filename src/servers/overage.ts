// Bandwidth overage, as rules: where a server's month usage crosses its allowance point
// (bw_overage_threshold × the plan's bandwidth), and what its policy does there (overageSteps: the
// one decision the sweep carries out and the start gate obeys). Usage is in GB with two decimals
// (as the API shows it); the arithmetic is in hundredths of a GB, in integers.

import type { ServerOptions } from './server-options.ts';

export type OveragePolicy = 'power_off' | 'throttle' | 'charge';

export interface Overage {
  policy: OveragePolicy;
  /** threshold × limit, in GB (two decimals): where the policy starts to apply. */
  pointGb: number;
  /** Usage has reached the point. */
  over: boolean;
  /** Whole GB past the point (what `charge` bills). */
  gbOver: number;
}

const hundredths = (gb: number) => Math.round(gb * 100);

/** A plan without an allowance (bandwidth 0) has none to cross: its traffic is not metered. */
export function overageOf(options: ServerOptions, limitGb: number, usageGb: number): Overage {
  const policy =
    (['power_off', 'throttle', 'charge'] as const).find((p) => p === options.bw_overage_policy) ?? 'power_off';
  if (limitGb <= 0) return { policy, pointGb: 0, over: false, gbOver: 0 };
  const point = hundredths(limitGb * options.bw_overage_threshold);
  const usage = hundredths(usageGb);
  return {
    policy,
    pointGb: point / 100,
    over: usage >= point,
    gbOver: usage > point ? Math.floor((usage - point) / 100) : 0,
  };
}

/** What a server's overage asks for now (docs/decisions.md, "`power_off` at the point" and the rows after it). */
export interface OverageSteps {
  /** throttle at or past the point: its public NIC limited (false: the limit, if one was set, lifted). */
  throttle: boolean;
  /** power_off at or past the point: powered off when running, and no start until that changes. */
  holdOff: boolean;
  /** charge: the whole GB past the point to bill now, beyond the `billedGb` billed this month. */
  billGb: number;
}

/** The decision of bandwidth overage, from where the server stands (overageOf) and what was billed this month. */
export function overageSteps(overage: Overage, billedGb = 0): OverageSteps {
  return {
    throttle: overage.policy === 'throttle' && overage.over,
    holdOff: overage.policy === 'power_off' && overage.over,
    billGb: overage.policy === 'charge' ? Math.max(0, overage.gbOver - billedGb) : 0,
  };
}

/** The calendar month (UTC) of an instant, as `YYYY-MM`: what a month's billed GB count in. */
export function monthOf(instant: number): string {
  return new Date(instant).toISOString().slice(0, 7);
}
