// Row type of compute_jobs: engine work a committed intent asks for (real compute driver only).

import type { Generated, Selectable } from 'kysely';

export interface ComputeJobTable {
  id: Generated<number>;
  /** `<server uuid>:<action>[:<snapshot uuid>]`: one open job per server and action (and snapshot). */
  key: string;
  server_uuid: string;
  /** The transition (provisioning, booting, ...) or remove, network, forget-snapshot. */
  action: string;
  /** JSON object of what the action needs beyond the server row (a snapshot uuid, ...). */
  payload: string;
  attempts: number;
  /** Clock ms before which the job is not run (back-off). */
  run_at: number;
  /** Real-time ms (Date.now, not the virtual clock) until which the instance that claimed the job holds it. */
  locked_until: number | null;
  last_error: string | null;
  created_at: number;
}

export type ComputeJobRow = Selectable<ComputeJobTable>;
