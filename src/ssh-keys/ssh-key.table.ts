// Row type of SSH public keys.

import type { Generated, Insertable, Selectable } from 'kysely';

export interface SshKeyTable {
  id: Generated<number>;
  uuid: string;
  account_id: number;
  name: string;
  public_key: string;
  key_type: string;
  fingerprint: string;
  created_at: number;
}

export type SshKeyRow = Selectable<SshKeyTable>;
export type NewSshKeyRow = Insertable<SshKeyTable>;
