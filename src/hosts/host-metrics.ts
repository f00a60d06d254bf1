// Gauges per host, read when /metrics is scraped from the hosts as the engine last reported them
// (reconciliation refreshes them; the simulated driver's are its own): whether each is up, its
// status, whether its last drain or restore was given up on, how many servers run there and what
// their plans take of its vCPUs and memory.

import type { Platform } from '../platform/context.ts';
import { type Host, reportedHosts } from './host.service.ts';

export function registerHostMetrics(ctx: Platform): void {
  const { metrics } = ctx;
  const perHost = (name: string, help: string, value: (host: Host) => number) =>
    metrics.addCollected(name, help, ['host'], async () =>
      (await reportedHosts(ctx)).map((host) => ({ labels: { host: host.name }, value: value(host) })),
    );

  perHost('nubis_host_up', 'Hosts the engine reports online (1), evacuated or offline (0)', (host) =>
    host.status === 'online' ? 1 : 0,
  );
  metrics.addCollected(
    'nubis_host_status',
    'Each host by the status the engine reports: online, evacuated (drained) or offline (its servers lost)',
    ['host', 'status'],
    async () =>
      (await reportedHosts(ctx)).flatMap((host) =>
        ['online', 'evacuated', 'offline'].map((status) => ({
          labels: { host: host.name, status },
          value: host.status === status ? 1 : 0,
        })),
      ),
  );
  perHost(
    'nubis_host_work_failed',
    'Hosts whose last drain or restore the engine gave up on (1) until one succeeds there (0)',
    (host) => (host.failure === null ? 0 : 1),
  );
  perHost('nubis_host_servers', 'Servers whose machine the engine reports on each host', (host) => host.servers);
  perHost('nubis_host_vcpus', 'vCPUs each host has', (host) => host.capacity.vcpus);
  perHost('nubis_host_vcpus_used', "vCPUs the plans of each host's servers take", (host) => host.used.vcpus);
  perHost('nubis_host_memory_bytes', 'Memory each host has, in bytes', (host) => host.capacity.memoryBytes);
  perHost(
    'nubis_host_memory_used_bytes',
    "Memory the plans of each host's servers take, in bytes",
    (host) => host.used.memoryBytes,
  );
}
