// What a server stopped for bandwidth overage may do (docs/decisions.md): while its policy is
// power_off and its month usage is still at or past its point, nothing powers it on; raising
// bw_overage_threshold, choosing another policy, or the month's end lets it start again.

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { Conflict } from '../platform/errors.ts';
import { catalogOf } from '../catalog/catalog-of.ts';
import { monthUsageGb } from './month-usage.ts';
import { effectiveOptions } from './server-options.ts';
import { overageOf, overageSteps } from './overage.ts';
import type { ServerRow } from './server.table.ts';

/** The reason the server may not be powered on now, or null when it may (`db`: the caller's transaction). */
export async function overageHold(ctx: Platform, db: Queryable, server: ServerRow): Promise<string | null> {
  const options = effectiveOptions(server.options);
  if (options.bw_overage_policy !== 'power_off') return null;
  const limit = catalogOf(ctx, server).plan.bandwidth_gb;
  const usage = (await monthUsageGb(ctx, db, [server])).get(server.uuid) ?? 0;
  const overage = overageOf(options, limit, usage);
  if (!overageSteps(overage).holdOff) return null;
  return `the server moved ${usage} GB this month, past its bandwidth point of ${overage.pointGb} GB (bw_overage_threshold ${options.bw_overage_threshold} × ${limit} GB) under bw_overage_policy power_off; raise bw_overage_threshold or change bw_overage_policy (option/set), or wait for the next month`;
}

/** 409 when the server is held off for bandwidth overage. */
export async function requireUnderAllowance(
  ctx: Platform,
  db: Queryable,
  server: ServerRow,
  action: string,
): Promise<void> {
  const hold = await overageHold(ctx, db, server);
  if (hold) throw new Conflict(`cannot ${action}: ${hold}`);
}
