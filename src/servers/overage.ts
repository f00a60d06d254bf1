// Bandwidth overage, as rules: where a server's month usage crosses its allowance point
// (bw_overage_threshold × the plan's bandwidth), and what its policy does there. Usage is in GB
// with two decimals (as the API shows it); the arithmetic is in hundredths of a GB, in integers.

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

/** The calendar month (UTC) of an instant, as `YYYY-MM`: what a month's billed GB count in. */
export function monthOf(instant: number): string {
  return new Date(instant).toISOString().slice(0, 7);
}
