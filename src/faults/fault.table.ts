// Row type of a fault rule: which requests it matches (every set field must match), what it
// does, and how often. `remaining` null means until removed.

import type { Generated, Selectable } from 'kysely';

export interface FaultRuleTable {
  id: Generated<number>;
  method: string | null;
  /** A request path (`/v1.3/server/start`), a route pattern (`/v1.3/server/:id`), or a prefix ending in `*`. */
  path: string | null;
  operation_id: string | null;
  account_id: number | null;
  /** `v1.3` or `v1`. */
  api: string | null;
  /** The status answered instead of the operation's own (null: the request goes on, only delayed). */
  status: number | null;
  latency_ms: number;
  /** 1: the request goes on, but its compute action fails (compute-fault.ts). */
  compute_fail: Generated<number>;
  retry_after: number | null;
  /** Probability that a matching request fires the rule, in millionths. */
  probability_ppm: number;
  remaining: number | null;
  fired: Generated<number>;
  note: string | null;
  created_at: number;
}

export type FaultRuleRow = Selectable<FaultRuleTable>;
