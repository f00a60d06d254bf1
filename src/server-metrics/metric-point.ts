// One point of a server's usage graph, as the service answers it (real or simulated).

/** One point of a graph: the average over its step, starting at `at` (clock ms). */
export interface MetricPoint {
  at: number;
  /** Percent of the plan's vCPUs. */
  cpu: number | null;
  memory_mb: number | null;
  disk_mb: number | null;
  /** Network in and out, bytes per second. */
  rx_bps: number | null;
  tx_bps: number | null;
}
