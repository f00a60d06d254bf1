// Row type of compute_jobs: engine work a committed intent asks for (drivers with an engine only).

import type { Generated, Selectable } from 'kysely';
import type { JobAction } from './compute-driver.ts';

export interface ComputeJobTable {
  id: Generated<number>;
  /** `<line>:<action>[:<snapshot uuid>]`: one waiting job per line and action (and snapshot). */
  key: string;
  /** The line the job waits in, one job at a time: a server's uuid (a VPC's for its network). */
  line: string;
  /** `converge` (the server's machine to its spec) or an artifact's kind. */
  action: JobAction;
  /** JSON of the artifact for an artifact's job; `{}` for converge. */
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
