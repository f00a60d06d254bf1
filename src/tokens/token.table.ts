// Row type of the tokens table. The token itself is never stored in a usable form:
// `digest` is its keyed hash (for look-up) and `sealed` its encryption under the server key.

import type { Generated, Insertable, Selectable } from 'kysely';

export interface TokenTable {
  id: Generated<number>;
  uuid: string;
  account_id: number;
  name: string;
  digest: string;
  sealed: string;
  created_at: number;
  last_used_at: number | null;
}

export type TokenRow = Selectable<TokenTable>;
export type NewTokenRow = Insertable<TokenTable>;
