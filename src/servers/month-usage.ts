// A server's traffic this calendar month (UTC), in GB to the hundredth, by uuid: the one read the
// bandwidth rules (overage.sweep.ts, overage-gate.ts) make, so the meter behind it can change alone.

import type { Platform } from '../platform/context.ts';
import { machineOf } from './server-details.ts';
import type { ServerRow } from './server.table.ts';

type Metered = Pick<ServerRow, 'uuid' | 'region_id' | 'image_id' | 'plan_id' | 'created_at' | 'power'>;

export function monthUsageGb(ctx: Platform, servers: readonly Metered[]): Promise<Map<string, number>> {
  return ctx.compute.bandwidthUsageGb(
    servers.map((server) => machineOf(ctx, server)),
    ctx.clock.now(),
  );
}
