// A server's traffic this calendar month (UTC), in GB to the hundredth, by uuid: the one read the
// bandwidth rules (overage.sweep.ts, overage-gate.ts) make, from the traffic meter
// (src/compute/traffic-meter.ts). `db`: the caller's transaction when it runs in one.

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { monthTrafficGb } from '../compute/traffic-meter.ts';
import { machineFacts } from '../compute/machine-facts.ts';
import type { ServerRow } from './server.table.ts';

type Metered = Pick<
  ServerRow,
  'uuid' | 'region_id' | 'image_id' | 'plan_id' | 'created_at' | 'power' | 'action' | 'action_until'
>;

export function monthUsageGb(ctx: Platform, db: Queryable, servers: readonly Metered[]): Promise<Map<string, number>> {
  return monthTrafficGb(
    ctx,
    db,
    servers.map((server) => machineFacts(ctx, server)),
    ctx.clock.now(),
  );
}
