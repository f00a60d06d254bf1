// Row types of VPCs and their members (server + private address).

import type { Generated, Selectable } from 'kysely';

export interface VpcTable {
  id: Generated<number>;
  uuid: string;
  account_id: number;
  region_id: number;
  name: string;
  /** Private IPv4 range, e.g. 10.17.0.0/24. */
  cidr: string;
  created_at: number;
}

export type VpcRow = Selectable<VpcTable>;

export interface VpcMemberTable {
  vpc_id: number;
  server_id: number;
  address: string;
  created_at: number;
}

export type VpcMemberRow = Selectable<VpcMemberTable>;
