// Row type of the reverse DNS outbox: the PTR record each public address should have on the
// authoritative DNS server, while it is not yet there (or not yet removed).

import type { Selectable } from 'kysely';

export interface PtrOutboxTable {
  /** The address as the API shows it (a server's IPv6 is the first host of its /64). */
  address: string;
  /** The host name the PTR points to; null: remove the PTR (the row goes once removed). */
  name: string | null;
  /** Counts the changes queued: an attempt marks done only the change it carried. */
  generation: number;
  attempts: number;
  /** Clock ms of the next attempt; null once published. */
  next_attempt_at: number | null;
  last_error: string | null;
  updated_at: number;
}

export type PtrOutboxRow = Selectable<PtrOutboxTable>;
