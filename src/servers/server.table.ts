// Row type of the servers table. Power state is derived, not pushed: `power` is the state
// the server settles in, `action` the transition under way until `action_until` on the clock.

import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export interface ServerTable {
  id: Generated<number>;
  uuid: string;
  account_id: number;
  name: string;
  hostname: string;
  region_id: number;
  image_id: number;
  plan_id: number;
  /** Snapshot the server was created from or last restored to (image_type snapshot), or null. */
  source_snapshot_uuid: string | null;
  /** Root password sealed with the server key. */
  password_sealed: string;
  ipv6_enabled: number;
  ddos_protection: number;
  backup_enabled: number;
  private_network: number;
  script_url: string | null;
  ssh_key_id: number | null;
  /**
   * The power asked for (the spec): running or stopped, written only by actions. What the engine
   * reports is `observed_power`; the power shown prefers it (compute/power-state.ts).
   */
  power: string;
  /** Transition under way (provisioning, booting, rebooting, stopping, rebuilding, ...), or null. */
  action: string | null;
  action_until: number | null;
  rescue: number;
  /** The disk's generation: rebuild, reinstall and restore bump it (the engine makes each once). */
  disk_generation: Generated<number>;
  /**
   * Bumped by every power intent (start, stop, reboot, rescue switch, a new disk, a forced stop): the
   * engine applies each once; between them the engine's power stands (one stopped outside stays so).
   */
  power_generation: Generated<number>;
  /** JSON object of server options (bw_overage_policy, bw_overage_threshold). */
  options: string;
  rdns: string | null;
  /** The status, written only from the engine's reports (null until it reports; the simulated driver never does). */
  observed_power: string | null;
  /** The disk generation the engine made and last reported (never made again: a missing one is lost). */
  observed_disk_generation: number | null;
  observed_power_generation: number | null;
  /** The host the machine runs on, as the engine last reported it (null until it reports one). */
  host: string | null;
  /** A host a new machine of this server must not land on (a recovery's lost host; the spec: only the recover action writes it). */
  avoid_host: string | null;
  /** Simulated driver: the host an evacuation moved the machine from (a restore of that host brings it back). */
  evacuated_from: string | null;
  /** JSON array of Condition (src/compute/machine-conditions.ts): EngineReachable, MachinePresent, DiskConsistent, Degraded. */
  conditions: string | null;
  /** Why the compute engine last failed this server (real driver), or null. */
  engine_error: string | null;
  /** JSON ScriptOutcome: what the first-boot script did, as the guest reported it; null until it reports. */
  script_outcome: string | null;
  /** 1 while the NIC is rate-limited for bandwidth overage (policy throttle). */
  throttled: Generated<number>;
  /** Calendar month (UTC, YYYY-MM) that overage_billed_gb counts in; null before any charge. */
  overage_billed_month: string | null;
  /** Whole GB over the allowance already billed in overage_billed_month (policy charge). */
  overage_billed_gb: Generated<number>;
  /** When the bandwidth-overage sweep looks at the server next: 0 once its traffic, power, plan or options changed (overage-due.ts). */
  overage_due_at: Generated<number | null>;
  /** Marks of the server as due at the overage sweep, counted: the sweep's next time lands only if none came since it read. */
  overage_marks: Generated<number>;
  created_at: number;
  updated_at: number;
}

export type ServerRow = Selectable<ServerTable>;
export type NewServerRow = Insertable<ServerTable>;
export type ServerUpdate = Updateable<ServerTable>;
