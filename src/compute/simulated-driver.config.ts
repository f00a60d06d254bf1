// The simulated driver's timings, traffic and hosts (src/compute/simulated-driver.ts and
// simulated-hosts.ts): realistic by default, seconds in the emulator.

import { area, variable } from '../platform/config-area.ts';
import { integer } from '../platform/config-parsers.ts';

export const simulatedDriverConfig = area({
  title: 'The simulated driver',
  variables: {
    simProvisionSeconds: variable(
      'SIM_PROVISION_SECONDS',
      60,
      integer(0, 86400),
      'simulated driver: seconds a new server spends provisioning',
    ),
    simBootSeconds: variable(
      'SIM_BOOT_SECONDS',
      10,
      integer(0, 86400),
      'simulated driver: seconds a start (or rescue toggle of a stopped server) spends booting',
    ),
    simStopSeconds: variable(
      'SIM_STOP_SECONDS',
      5,
      integer(0, 86400),
      'simulated driver: seconds a stop spends stopping',
    ),
    simRebootSeconds: variable(
      'SIM_REBOOT_SECONDS',
      15,
      integer(0, 86400),
      'simulated driver: seconds a reboot (or rescue toggle of a running server) spends rebooting',
    ),
    simRebuildSeconds: variable(
      'SIM_REBUILD_SECONDS',
      90,
      integer(0, 86400),
      'simulated driver: seconds a rebuild or reinstall spends writing the image',
    ),
    simResizeSeconds: variable(
      'SIM_RESIZE_SECONDS',
      30,
      integer(0, 86400),
      'simulated driver: seconds a resize takes (a running server is rebooted by it)',
    ),
    simSnapshotSecondsPerGb: variable(
      'SIM_SNAPSHOT_SECONDS_PER_GB',
      2,
      integer(0, 3600),
      'simulated driver: seconds per GB of disk data to take or restore a snapshot or backup',
    ),
    simBandwidthGbPerDay: variable(
      'SIM_BANDWIDTH_GB_PER_DAY',
      2,
      integer(0, 1_000_000),
      'simulated driver: average traffic a running server sends per day (each server varies around it)',
    ),
    simInboundGbPerDay: variable(
      'SIM_INBOUND_GB_PER_DAY',
      0,
      integer(0, 1_000_000),
      'simulated driver: traffic every running server receives per day besides what it asks for (a flood from outside)',
    ),
    simHosts: variable(
      'SIM_HOSTS',
      1,
      integer(1, 1000),
      'simulated driver: hosts each region has (named <region>-1, <region>-2, …); a new server lands on the one with most room',
    ),
    simHostVcpus: variable(
      'SIM_HOST_VCPUS',
      64,
      integer(1, 100_000),
      'simulated driver: vCPUs each simulated host has',
    ),
    simHostMemoryGb: variable(
      'SIM_HOST_MEMORY_GB',
      256,
      integer(1, 1_000_000),
      'simulated driver: memory each simulated host has, in GB',
    ),
    simHostDiskGb: variable(
      'SIM_HOST_DISK_GB',
      4000,
      integer(1, 100_000_000),
      'simulated driver: storage each simulated host has, in GB',
    ),
  },
  // Simulated transitions in seconds, so `--wait` in a dev session answers while one watches
  // (a test that needs the real timings sets SIM_* itself).
  emulator: {
    simProvisionSeconds: 3,
    simBootSeconds: 2,
    simStopSeconds: 1,
    simRebootSeconds: 2,
    simRebuildSeconds: 3,
    simResizeSeconds: 2,
    simSnapshotSecondsPerGb: 1,
  },
});
