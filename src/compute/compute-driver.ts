// The compute driver: what runs the machines behind the servers. The server service owns
// state and timestamps; a driver carries out an action and says how long it takes.

import type { Image, Plan, Region } from '../catalog/catalog.types.ts';
import type { ServerEgress } from './server-egress.ts';
import type { ScriptReport } from '../servers/script-outcome.ts';

/** A server as a driver sees it. */
export interface Machine {
  uuid: string;
  region: Region;
  plan: Plan;
  image: Image;
  /** Clock ms of the server's creation. */
  createdAt: number;
  /** True when the machine is (or will settle) powered on. */
  running: boolean;
}

/** What a new machine is set up with at first boot. */
export interface MachineSetup {
  rootPassword: string;
  sshPublicKey: string | null;
  scriptUrl: string | null;
  ipv4: string;
  ipv6: string | null;
}

/** An action the driver accepted: the machine is in transition for this long. */
export interface ActionTicket {
  durationMs: number;
}

export interface SnapshotTicket extends ActionTicket {
  /** Size of the disk image taken, in whole GB. */
  sizeGb: number;
}

/**
 * Drivers are called inside the caller's transaction, just before it records the outcome;
 * a driver with real side effects must accept an action idempotently on the machine's uuid,
 * because a later failure in the same transaction rolls the record back.
 */
export interface ComputeDriver {
  readonly name: string;
  /**
   * Set by a driver that runs real machines: its tickets only hold the server busy (an upper
   * bound), the intent is queued as a compute job in the caller's transaction, and the job runner
   * performs it through `engine` after the commit and settles the server from the engine's report.
   */
  readonly engine?: Engine;
  provision(machine: Machine, setup: MachineSetup): Promise<ActionTicket>;
  start(machine: Machine): Promise<ActionTicket>;
  stop(machine: Machine): Promise<ActionTicket>;
  reboot(machine: Machine): Promise<ActionTicket>;
  /** Reboots into the recovery image (enable) or back onto the disk. */
  rescue(machine: Machine, enable: boolean): Promise<ActionTicket>;
  /** Overwrites the disk with the image (a reinstall passes the machine's own image). */
  rebuild(machine: Machine, image: Image, rootPassword: string): Promise<ActionTicket>;
  resize(machine: Machine, plan: Plan): Promise<ActionTicket>;
  snapshot(machine: Machine, now: number): Promise<SnapshotTicket>;
  /** Writes a snapshot or backup of `sizeGb` back onto the machine's disk. */
  restore(machine: Machine, sizeGb: number): Promise<ActionTicket>;
  remove(machine: Machine): Promise<void>;
  /** Traffic of each machine in the current calendar month (UTC), in GB, by uuid. */
  bandwidthUsageGb(machines: Machine[], now: number): Promise<Map<string, number>>;
}

/** Everything an engine needs to make a machine match a server, read when its job runs. */
export interface MachineSpec {
  uuid: string;
  hostname: string;
  region: Region;
  plan: Plan;
  image: Image;
  /** The power the server should settle in. */
  power: 'running' | 'stopped';
  rescue: boolean;
  rootPassword: string;
  sshPublicKey: string | null;
  scriptUrl: string | null;
  ipv4: string | null;
  ipv6: string | null;
  /** Floating IPs attached (addresses). */
  floating: string[];
  /** VPCs the server is a member of: the VPC uuid, its range and the member's address. */
  vpcs: { uuid: string; cidr: string; address: string }[];
  /** Snapshot (or backup) uuid the disk comes from, for create from snapshot and restore. */
  sourceSnapshot: string | null;
  /** The public NIC's rate each way while bandwidth policy `throttle` applies (`10Mbit`), else null. */
  throttle: string | null;
}

/** What the engine reports once it carried an action out. */
export interface EngineOutcome {
  power?: 'running' | 'stopped';
  /** For a snapshot or backup: the size of the image kept, in whole GB. */
  sizeGb?: number;
}

/** What the engine reports of one instance's use (the server's usage graphs). */
export interface InstanceUsage {
  /** CPU time used since the instance started, in ns. */
  cpuNs: number | null;
  memoryBytes: number | null;
  diskBytes: number | null;
  rxBytes: number;
  txBytes: number;
}

export interface EngineObservation {
  power: 'running' | 'stopped';
  /** Null when the machine is not running. */
  usage?: InstanceUsage | null;
}

/** The real machines behind servers, driven by the job runner (src/compute/job-runner.ts). */
export interface Engine {
  /**
   * Carries out one action idempotently: a transition name (provisioning, booting, stopping,
   * rebooting, rebuilding, reinstalling, resizing, restoring, snapshotting), or remove, network,
   * backup, forget-snapshot. `spec` is null once the server is gone (remove).
   */
  perform(
    action: string,
    serverUuid: string,
    spec: MachineSpec | null,
    payload: Record<string, unknown>,
  ): Promise<EngineOutcome>;
  /** The engine's view of every machine it runs for Nubis, by server uuid (reconciliation). */
  observe(): Promise<Map<string, EngineObservation>>;
  /**
   * Drops each server's egress to its account's blocked ports (every server of every region at
   * once: the rules of servers gone are dropped too). Idempotent; called before a machine is
   * made and at every reconciliation (src/compute/egress-policy.ts).
   */
  enforceBlockedPorts?(regions: Region[], servers: ServerEgress[]): Promise<void>;
  /** What the guest recorded of its first-boot script (script_url), null until it has (script-reports.ts). */
  scriptReport?(serverUuid: string): Promise<ScriptReport | null>;
  close(): void;
}
