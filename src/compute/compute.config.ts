// The compute driver that runs the servers, the traffic it meters and throttles, and the LXD
// driver's engine, storage and timings. (The simulated driver's are in simulated-driver.config.ts.)

import { area, variable } from '../platform/config-area.ts';
import { ConfigError, integer, oneOf, type Parser, text } from '../platform/config-parsers.ts';

/** A rate as the engine writes NIC limits: a number and a bit unit (`10Mbit`, `500kbit`, `1Gbit`). */
const bitRate: Parser<string> = (raw, name) => {
  const value = raw.trim();
  if (!/^[1-9]\d{0,6}(bit|kbit|Mbit|Gbit)$/.test(value))
    throw new ConfigError(`${name} must be a rate such as 10Mbit (bit, kbit, Mbit or Gbit), got "${raw}"`);
  return value;
};

export const computeConfig = area({
  title: 'Compute',
  variables: {
    computeDriver: variable(
      'COMPUTE_DRIVER',
      'simulated' as 'simulated' | 'lxd',
      oneOf('simulated', 'lxd'),
      'compute driver that runs the servers: `simulated` (state and timings only, no machines) or `lxd` (real machines on LXD or Incus; see Running real servers)',
    ),
    trafficMetered: variable(
      'TRAFFIC_METERED',
      'outbound',
      oneOf('outbound', 'both'),
      "which of a server's public traffic counts against its allowance: outbound (what it sends, as providers bill it) or both directions; the graphs show both either way",
    ),
    throttleRate: variable(
      'BANDWIDTH_THROTTLE_RATE',
      '10Mbit',
      bitRate,
      "rate each way of a server's public NIC once its bandwidth policy `throttle` applies (LXD `limits.egress`/`limits.ingress`)",
    ),
    lxdUrl: variable(
      'LXD_URL',
      '/var/lib/lxd/unix.socket',
      text,
      'lxd driver: the engine, a unix socket path (Incus: /var/lib/incus/unix.socket) or https://host:8443',
    ),
    lxdClientCert: variable('LXD_CLIENT_CERT', '', text, 'lxd driver over https: PEM file of the client certificate'),
    lxdClientKey: variable('LXD_CLIENT_KEY', '', text, 'lxd driver over https: PEM file of the client key'),
    lxdServerCert: variable(
      'LXD_SERVER_CERT',
      '',
      text,
      "lxd driver over https: PEM file of the engine's certificate to trust (default: the system CAs)",
    ),
    lxdProject: variable('LXD_PROJECT', '', text, 'lxd driver: engine project the servers live in (empty: default)'),
    lxdStoragePool: variable('LXD_STORAGE_POOL', 'nubis', text, "lxd driver: storage pool of the servers' root disks"),
    lxdStorageDriver: variable(
      'LXD_STORAGE_DRIVER',
      'btrfs',
      text,
      "lxd driver: driver `nubis compute setup` creates the storage pool with when it is missing (btrfs, zfs, lvm: with quotas, each root disk the plan's size; dir has none)",
    ),
    lxdStorageSize: variable(
      'LXD_STORAGE_SIZE',
      '',
      text,
      "lxd driver: size of the loop file `nubis compute setup` makes a new pool on, e.g. 100GiB (empty: the engine's default; ignored for dir)",
    ),
    computeJobAttempts: variable(
      'COMPUTE_JOB_ATTEMPTS',
      12,
      integer(1, 1000),
      'lxd driver: attempts at an engine action (1 s, 2 s, 4 s ... 30 s apart) before the server shows the failure',
    ),
    computeJobConcurrency: variable(
      'COMPUTE_JOB_CONCURRENCY',
      4,
      integer(1, 256),
      'lxd driver: engine actions one instance performs at once',
    ),
    computeReconcileSeconds: variable(
      'COMPUTE_RECONCILE_SECONDS',
      30,
      integer(1, 86400),
      "lxd driver: seconds between two reconciliations of the servers' power with the engine's",
    ),
    computeResyncSeconds: variable(
      'COMPUTE_RESYNC_SECONDS',
      600,
      integer(1, 86400),
      "lxd driver: longest time between two full reads of every instance; between them a reconciliation re-reads only what the engine's events said changed",
    ),
    computeUsageSeconds: variable(
      'COMPUTE_USAGE_SECONDS',
      60,
      integer(1, 86400),
      "lxd driver: seconds between two readings of the running machines' counters (one engine call: the traffic meter and the usage graphs)",
    ),
    computeObserveTimeoutSeconds: variable(
      'COMPUTE_OBSERVE_TIMEOUT_SECONDS',
      10,
      integer(1, 3600),
      'lxd driver: longest a reconciliation waits for the engine before its servers show EngineReachable=false and power unknown',
    ),
    computeGracefulStopSeconds: variable(
      'COMPUTE_GRACEFUL_STOP_SECONDS',
      30,
      integer(1, 3600),
      'lxd driver: seconds a stop or reboot waits for the guest to shut down cleanly before forcing it (the event says so)',
    ),
    computeActionTimeoutSeconds: variable(
      'COMPUTE_ACTION_TIMEOUT_SECONDS',
      3600,
      integer(10, 86400),
      'lxd driver: longest a server shows an engine action under way before it settles regardless',
    ),
  },
  integrations: [
    {
      name: 'LXD over HTTPS',
      together: ['LXD_CLIENT_CERT', 'LXD_CLIENT_KEY'],
      required: {
        when: (config) => config.computeDriver === 'lxd' && /^https:/i.test(config.lxdUrl),
        because: 'COMPUTE_DRIVER=lxd reaches LXD_URL over https',
      },
    },
  ],
});
