// Row type of the hosts table: each host as the engine last reported it (an engine's cluster
// member, a single engine's one host, or a simulated host of SIM_HOSTS).

import type { Selectable } from 'kysely';

export interface HostTable {
  name: string;
  /** The region a simulated host serves; null for an engine's host (its groups say where it serves). */
  region_id: number | null;
  /** online, evacuated or offline (HostReport.status). */
  status: string;
  message: string;
  /** JSON array of the cluster groups the host is in. */
  groups: string;
  vcpus: number;
  memory_bytes: number;
  disk_bytes: number | null;
  updated_at: number;
  /** The last drain or restore the engine gave up on there (why), until one succeeds; null otherwise. */
  failure: string | null;
}

export type HostRow = Selectable<HostTable>;
