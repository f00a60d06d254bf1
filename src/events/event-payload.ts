// An event on the wire: the JSON body of a webhook delivery. Part of the delivery adapter, as a
// route's answer is part of the API's: the service hands over a NubisEvent and this shapes it.
// The operator feed and its stream send the same object; their route types it by its schema.

import { isoSeconds } from '../platform/clock.ts';
import type { EventCause, NubisEvent } from './event.ts';

export interface EventPayload {
  id: number;
  type: string;
  occurred: string;
  account: number | null;
  resource: { type: string; uuid: string };
  data: Record<string, unknown>;
  cause: EventCause | null;
}

export function eventPayload(event: NubisEvent): EventPayload {
  return {
    id: event.id,
    type: event.type,
    occurred: isoSeconds(event.occurredAt),
    account: event.accountId,
    resource: event.resource,
    data: event.data,
    cause: event.cause,
  };
}
