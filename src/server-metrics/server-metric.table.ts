// Row type of a server's usage samples (migration 0014_server_metrics).

import type { Generated, Insertable, Selectable } from 'kysely';

export type MetricResolution = 'sample' | 'hour';

export interface ServerMetricSampleTable {
  id: Generated<number>;
  server_uuid: string;
  resolution: MetricResolution;
  /** Clock ms of the reading (of the hour's start, for an hour). */
  at: number;
  /** Real ms of the reading: the engine's counters count in real time. Null for an hour. */
  wall_at: number | null;
  /** The engine's counters as read (CPU time since the instance started; NIC bytes). Null for an hour. */
  cpu_ns: number | null;
  rx_bytes: number | null;
  tx_bytes: number | null;
  /** Rates since the previous sample (null on the first of a boot), and the gauges as read. */
  cpu_percent: number | null;
  memory_mb: number | null;
  disk_mb: number | null;
  rx_bps: number | null;
  tx_bps: number | null;
}

export type ServerMetricSampleRow = Selectable<ServerMetricSampleTable>;
export type NewServerMetricSample = Insertable<ServerMetricSampleTable>;
