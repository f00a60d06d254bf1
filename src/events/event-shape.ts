// An event as the operator API, the event stream and webhooks show it.

import { isoSeconds } from '../platform/clock.ts';
import type { EventRow } from './event.table.ts';

/** An event as the operator API, the stream and webhooks show it. */
export interface NubisEvent {
  id: number;
  type: string;
  occurred: string;
  account: number | null;
  resource: { type: string; uuid: string };
  data: Record<string, unknown>;
  /** customer, operator, sweep or engine; null when recorded before causes were kept. */
  cause: string | null;
}

export function describeEvent(row: EventRow): NubisEvent {
  return {
    id: row.id,
    type: row.type,
    occurred: isoSeconds(row.occurred_at),
    account: row.account_id,
    resource: { type: row.resource_type, uuid: row.resource_uuid },
    data: JSON.parse(row.data) as Record<string, unknown>,
    cause: row.cause,
  };
}
