// Row type of floating IPs: an IPv4 /32 or an IPv6 /64 held by an account, attachable to one server.

import type { Generated, Selectable } from 'kysely';

export interface FloatingIpTable {
  id: Generated<number>;
  uuid: string;
  account_id: number;
  region_id: number;
  version: number;
  address: string;
  prefix: number;
  netmask: string;
  gateway: string;
  reverse: string | null;
  server_id: number | null;
  created_at: number;
}

export type FloatingIpRow = Selectable<FloatingIpTable>;
