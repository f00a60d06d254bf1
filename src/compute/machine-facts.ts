// A server as a compute driver sees it (MachineFacts): its plan and image, when it was made, and the
// power it is in or the transition under way. Drivers time a change and count traffic from it.

import type { Platform } from '../platform/context.ts';
import { catalogOf } from '../catalog/catalog-of.ts';
import type { MachineFacts } from './compute-driver.ts';
import type { ServerRow } from './server-row.ts';

/** The server as a compute driver times it and counts its traffic. */
export function machineFacts(
  ctx: Platform,
  row: Pick<
    ServerRow,
    'uuid' | 'region_id' | 'image_id' | 'plan_id' | 'created_at' | 'power' | 'action' | 'action_until'
  >,
): MachineFacts {
  const { image, plan } = catalogOf(ctx, row);
  return {
    uuid: row.uuid,
    image,
    plan,
    createdAt: row.created_at,
    power: row.power,
    action: row.action,
    actionUntil: row.action_until,
  };
}
