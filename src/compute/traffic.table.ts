// Row types of the traffic meter: the last NIC reading of each server, and its bytes per month.

import type { Generated, Selectable } from 'kysely';

export interface TrafficReadingTable {
  id: Generated<number>;
  server_uuid: string;
  /** The boot the counter counts from (a new one restarts the counter at 0). */
  epoch: string;
  /** Bytes in + out on the public NIC since that boot, as last read. */
  counter: number;
  /** Clock ms of the reading. */
  read_at: number;
}

export interface TrafficMonthTable {
  id: Generated<number>;
  server_uuid: string;
  /** Clock ms of the UTC calendar month's start. */
  month_start: number;
  bytes: number;
}

export type TrafficReadingRow = Selectable<TrafficReadingTable>;
