// An event as the domain knows it: a numbered change of one resource, with clock ms and its data
// parsed. The operator API, the stream and webhooks shape it for the wire (event-payload.ts).

import type { EventRow } from './event.table.ts';

/** Who or what brought an event about: a customer's request, the operator, a sweep, or the compute engine. */
export type EventCause = 'customer' | 'operator' | 'sweep' | 'engine';

export interface NubisEvent {
  /** The sequence number. */
  id: number;
  type: string;
  /** Clock ms. */
  occurredAt: number;
  accountId: number | null;
  resource: { type: string; uuid: string };
  data: Record<string, unknown>;
  /** Null when recorded before causes were kept. */
  cause: EventCause | null;
}

export function eventOfRow(row: EventRow): NubisEvent {
  return {
    id: row.id,
    type: row.type,
    occurredAt: row.occurred_at,
    accountId: row.account_id,
    resource: { type: row.resource_type, uuid: row.resource_uuid },
    data: JSON.parse(row.data) as Record<string, unknown>,
    cause: row.cause as EventCause | null,
  };
}
