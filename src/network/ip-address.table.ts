// Row type of allocated addresses from the regions' pools. The unique (pool, address)
// index is what makes an address impossible to hand out twice, on any number of instances.

import type { Generated, Selectable } from 'kysely';

export interface IpAddressTable {
  id: Generated<number>;
  /** Pool name from the catalog (e.g. `1001-v4`), or `vpc:<uuid>` for private ranges. */
  pool: string;
  address: string;
  version: number;
  region_id: number;
  account_id: number;
  /** What holds it: `server` (primary interface), `floating_ip`, or `vpc` (private address). */
  holder_type: string;
  holder_uuid: string;
  created_at: number;
  /** Reverse DNS name (PTR) set through rdns/put; null shows the holder's default. */
  reverse: string | null;
}

export type IpAddressRow = Selectable<IpAddressTable>;
