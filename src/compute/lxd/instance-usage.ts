// What LXD's instance state says of a machine's use: CPU time, memory, the root disk and the
// public NIC's counters (GET /1.0/instances?recursion=2 carries the state of each).

import type { InstanceUsage } from '../compute-driver.ts';

/** The parts of an LXD instance state the usage graphs read. */
export interface LxdUsageState {
  cpu?: { usage: number } | null;
  memory?: { usage: number } | null;
  disk?: Record<string, { usage: number }> | null;
  network: Record<string, { counters: { bytes_received: number; bytes_sent: number } }> | null;
}

/** The instance's usage, or null when it is not running (LXD then reports no counters). */
export function usageOf(state: LxdUsageState | null | undefined): InstanceUsage | null {
  const eth0 = state?.network?.eth0;
  if (!state || !eth0) return null;
  return {
    cpuNs: state.cpu?.usage ?? null,
    memoryBytes: state.memory?.usage ?? null,
    diskBytes: state.disk?.root?.usage ?? null,
    rxBytes: eth0.counters.bytes_received,
    txBytes: eth0.counters.bytes_sent,
  };
}
