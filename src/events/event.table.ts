// Row types of events, scheduled events, webhooks and their deliveries (migration 0010b).

import type { Generated, Selectable } from 'kysely';

/** What an event tells, recorded or scheduled: whose, of what resource, what happened. */
interface EventColumns {
  account_id: number | null;
  type: string;
  resource_type: string;
  resource_uuid: string;
  /** JSON object. */
  data: string;
}

export interface EventTable extends EventColumns {
  /** The sequence number. */
  id: Generated<number>;
  occurred_at: number;
  /** Who or what brought it about (EventCause); null on events recorded before causes were kept. */
  cause: string | null;
}

/** An event the clock brings about later (a transition that ends at `due_at`). */
export interface EventScheduleTable extends EventColumns {
  id: Generated<number>;
  due_at: number;
}

export interface WebhookTable {
  id: Generated<number>;
  account_id: number;
  url: string;
  /** The signing secret, sealed with the server key (it must be read back to sign). */
  secret_sealed: string;
  created_at: number;
}

export interface WebhookDeliveryTable {
  id: Generated<number>;
  webhook_id: number;
  event_id: number;
  delivered_at: number | null;
  attempts: Generated<number>;
  next_attempt_at: number;
  /** Set while one instance is posting it (real-time ms), so no other posts it at the same time. */
  leased_until: number | null;
  last_error: string | null;
}

/** Which server an image (snapshot or backup) was taken of, kept after the image is gone (migration 0015). */
export interface ServerImageTable {
  image_uuid: string;
  server_uuid: string;
}

export type EventRow = Selectable<EventTable>;
export type EventScheduleRow = Selectable<EventScheduleTable>;
export type WebhookRow = Selectable<WebhookTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveryTable>;
