// The compute seam. What a server's machine should be is data (`MachineSpec`, derived from its
// rows: desired-machine.ts); what is made or forgotten beside it is an `Artifact`. A service never
// calls a driver: it records a change or an artifact through `recordIntent` (machine-intents.ts),
// which shows the transition for as long as the driver says and, with an engine, queues a job; the
// job runner has the engine converge the instance to the spec (or produce the artifact) after the
// commit and settles the server from the engine's report; reconciliation compares the engine's
// view with the specs and puts drift back. docs/architecture.md draws it.

import { type Static, Type } from 'typebox';
import type { Image, Plan, Region } from '../catalog/catalog.types.ts';
import type { Transition } from './power-state.ts';
import type { ServerEgress } from './server-egress.ts';
import type { ScriptReport } from './script-outcome.ts';

export type Power = 'running' | 'stopped';

/** Where a server's disk comes from: a catalog image, or a snapshot (or backup) the engine keeps. */
export type DiskSource = { kind: 'image'; image: Image } | { kind: 'snapshot'; snapshot: string; image: Image };

/** The server's disk: rebuild, reinstall and restore bump its generation; an applied generation is never made again. */
export interface MachineDisk {
  generation: number;
  source: DiskSource;
  /**
   * The engine reported this generation made: an instance missing now is a lost machine (the
   * engine throws `MachineLost`), never a reason to make a blank disk again. Only an action that
   * bumps the generation (rebuild, reinstall, restore) makes a disk anew.
   */
  made?: boolean;
}

/** The machine the engine made for the spec's disk is gone: only an explicit action recovers it. */
export class MachineLost extends Error {
  constructor(serverUuid: string) {
    super(`the engine has no machine for server ${serverUuid}, whose disk it made: it is lost, and is not made again`);
    this.name = 'MachineLost';
  }
}

/** What the plan allows the machine. */
export interface MachineLimits {
  vcpus: number;
  memoryMb: number;
  diskGb: number;
}

/** The machine's network: its own addresses, the floating IPs routed to it, its VPC NICs. */
export interface MachineNetwork {
  ipv4: string | null;
  ipv6: string | null;
  /** Floating IPs attached (addresses). */
  floating: string[];
  /** VPCs the server is a member of: the VPC uuid, its range and the member's address, in VPC order. */
  vpcs: { uuid: string; cidr: string; address: string }[];
  /** The public NIC's rate each way while bandwidth policy `throttle` applies (`10Mbit`), else null. */
  throttle: string | null;
}

/** What the machine is set up with at a disk's first boot. */
export interface FirstBoot {
  /** Unsealed when asked (desired-machine.ts): asked only to set the machine up. */
  rootPassword(): string;
  sshPublicKey: string | null;
  scriptUrl: string | null;
}

/**
 * The desired machine of a server, as its rows say it should be now. An engine converges an
 * instance to it: compare, then make the smallest change; the same call serves a first run, a
 * retry after a crash and drift found by reconciliation. The network and first-boot fields sit at
 * the top level (the network script and the rescue system read them so).
 */
export interface MachineSpec extends MachineNetwork, FirstBoot {
  uuid: string;
  hostname: string;
  region: Region;
  plan: Plan;
  /** The catalog image of the disk (a snapshot's own image for a disk made from one). */
  image: Image;
  power: Power;
  rescue: boolean;
  /**
   * Bumped by every power intent (start, stop, reboot, rescue switch, a new disk, a forced stop):
   * the engine applies `power` (restarting a running machine for a reboot) once per generation, and
   * otherwise leaves the machine's power as it is (reconciliation reports it).
   */
  powerGeneration: number;
  disk: MachineDisk;
  limits: MachineLimits;
  /** Hosts a new machine must not land on (recovery: the lost host); absent or empty, every host may take it. */
  avoidHosts?: string[];
}

/** A server reference an artifact carries: the line its job waits in. */
const ofServer = { snapshot: Type.String({ minLength: 1 }), server: Type.String({ minLength: 1 }) };
const closed = { additionalProperties: false };

/**
 * What is made or forgotten rather than set: each kind with its own ids. `takeSnapshot` and
 * `takeBackup` copy the server's disk into an image the engine keeps (it outlives the server);
 * `forgetImage` deletes one; `forgetVpcNetwork` deletes a removed VPC's engine network. The
 * schema is also how a job's stored payload is read back (artifact-payload.ts).
 */
export const ArtifactSchema = Type.Union([
  Type.Object({ kind: Type.Literal('takeSnapshot'), ...ofServer }, closed),
  Type.Object({ kind: Type.Literal('takeBackup'), ...ofServer }, closed),
  Type.Object({ kind: Type.Literal('forgetImage'), ...ofServer }, closed),
  Type.Object({ kind: Type.Literal('forgetVpcNetwork'), vpc: Type.String({ minLength: 1 }) }, closed),
]);
export type Artifact = Static<typeof ArtifactSchema>;

export type ArtifactKind = Artifact['kind'];

/** Every artifact kind (the check below fails type-checking when one is missing). */
export const artifactKinds = ['takeSnapshot', 'takeBackup', 'forgetImage', 'forgetVpcNetwork'] as const;
const everyArtifactKind: Exclude<ArtifactKind, (typeof artifactKinds)[number]> extends never ? true : never = true;
void everyArtifactKind;

/** Something to be done for each kind of artifact: TypeScript checks every kind is handled. */
export type ArtifactHandlers<R> = { [K in ArtifactKind]: (artifact: Extract<Artifact, { kind: K }>) => R };

/** The artifacts' constructors: the one place their kinds are spelled. */
export const artifacts = {
  snapshot: (snapshot: string, server: string): Artifact => ({ kind: 'takeSnapshot', snapshot, server }),
  backup: (snapshot: string, server: string): Artifact => ({ kind: 'takeBackup', snapshot, server }),
  forgetImage: (image: { uuid: string; server_uuid: string }): Artifact => ({
    kind: 'forgetImage',
    snapshot: image.uuid,
    server: image.server_uuid,
  }),
  forgetVpcNetwork: (vpc: string): Artifact => ({ kind: 'forgetVpcNetwork', vpc }),
};

/** Artifacts that copy a disk into an image (their job waits for nothing; servers made from it wait for them). */
export const copyingArtifacts: readonly ArtifactKind[] = ['takeSnapshot', 'takeBackup'];
/** The artifact that deletes an image (it waits for the servers being made from it). */
export const forgettingImage: ArtifactKind = 'forgetImage';
/** Work that outlives its server's removal: a snapshot (not a backup) is kept, a forgotten image still goes. */
export const outlivingServer: readonly ArtifactKind[] = ['takeSnapshot', 'forgetImage'];

/** The job that converges a server's machine to its spec (or removes it once the server is gone). */
export const convergeJob = 'converge';

/** The jobs that evacuate or restore a host (their line: hostLine of the host's name). */
export const hostJobs = { evacuate: 'evacuateHost', restore: 'restoreHost' } as const;
export type HostJob = (typeof hostJobs)[keyof typeof hostJobs];

export type JobAction = typeof convergeJob | ArtifactKind | HostJob;

/**
 * NIC counters of a machine (the bytes its public NIC sent, and received where TRAFFIC_METERED is
 * `both`: traffic-meter.ts, meteredBytes) as read at `at`, counting
 * from the machine's last boot: `epoch` names that boot, so a reading of a new epoch started at 0.
 * `since` is when the epoch began, where known.
 */
export interface TrafficCounter {
  epoch: string;
  bytes: number;
  at: number;
  since: number | null;
}

/** What the engine reports of one instance's use: the one place its counters are read (traffic, graphs). */
export interface InstanceUsage {
  /** CPU time used since the instance started, in ns. */
  cpuNs: number | null;
  memoryBytes: number | null;
  diskBytes: number | null;
  rxBytes: number;
  txBytes: number;
}

/** The engine's view of a server's machine at a reconciliation. */
export interface EngineObservation {
  /** The engine's name for the machine (nubis-<uuid>), where it has one. */
  instance?: string;
  power: Power;
  /** The public NIC's counters, null when the machine is not running. */
  traffic: TrafficCounter | null;
  usage: InstanceUsage | null;
  /** What differs from the spec in what Nubis controls (limits, NICs), in words; empty when nothing. */
  drift: string[];
  /** The disk generation the machine was made for, and the power generation it last applied, where known. */
  diskGeneration?: number;
  powerGeneration?: number;
  /** The host the machine runs on (LXD: the instance's `location`), where known. */
  host?: string;
}

/**
 * What one call of the engine read of every machine (`Engine.readAll`), answered from memory page
 * by page: a full reconciliation holds a page of specs, rows and observations at a time, never
 * the fleet's, however the engine had to read.
 */
export interface EngineReading {
  /** The server uuids the machines are named for (the engine's own order), `size` at a time. */
  servers(size: number): Iterable<readonly string[]>;
  /** The machines of the servers in `only`, compared with the specs given, by server uuid. */
  observe(specs: ReadonlyMap<string, MachineSpec>, only: ReadonlySet<string>): Map<string, EngineObservation>;
}

/** What the engine reports once it converged a machine. */
export interface ConvergeReport {
  power?: Power;
  /** The disk and power generations the machine now holds (the status: written beside the spec, never into it). */
  diskGeneration?: number;
  powerGeneration?: number;
  /** The guest did not stop cleanly within COMPUTE_GRACEFUL_STOP_SECONDS: it was stopped by force. */
  forced?: boolean;
  /** The counters as found before acting (a stop or restart resets them). */
  traffic?: TrafficCounter | null;
  /** The host the machine runs on (LXD: the instance's `location`), where known. */
  host?: string;
}

/** One host (an engine cluster member; a single engine is one host) as the engine reports it. */
export interface HostReport {
  /** LXD member name (a non-clustered engine: its server_name). */
  name: string;
  /** LXD: Online / Evacuated / Offline (any other status is offline, its message kept). */
  status: 'online' | 'evacuated' | 'offline';
  message: string;
  /** Cluster groups the member is in. */
  groups: string[];
  capacity: { vcpus: number; memoryBytes: number; diskBytes: number | null };
}

/** What the engine reports once it produced an artifact. */
export interface ArtifactReport {
  /** For a disk copy: the size of the image kept, in whole GB. */
  sizeGb?: number;
}

/**
 * The network policy every server's machine is converged with: what each may send (the ports its
 * account may not reach, the addresses its traffic is known by), every region's servers at once,
 * so the rules of servers gone are dropped too (src/compute/egress-policy.ts reads it).
 */
export interface EgressPolicy {
  regions: Region[];
  /** Every server's egress, a page at a time, read as the engine takes them (a fleet is never held at once). */
  servers(): AsyncIterable<readonly ServerEgress[]>;
}

/**
 * The real machines behind servers, driven by the job runner (src/compute/job-runner.ts). Every
 * member is required: an engine without an event stream or a usage batch says so by what it
 * answers (see `changes` and `readUsage`), never by leaving a method out for callers to test.
 */
export interface Engine {
  /**
   * Makes the server's instance match `spec`, idempotently (a retry finds half its work done and
   * does the rest); `spec` null: the server is gone, its instances and backups go. `now`: the
   * clock's time, which the counters it reports carry. The network policy is part of converging:
   * `egress` is read once the engine has answered, and put in place (as `convergeEgress` does)
   * before the machine's network is set or it runs, so a machine made or re-addressed is filtered
   * from its first packet.
   */
  converge(
    serverUuid: string,
    spec: MachineSpec | null,
    now: number,
    egress: () => Promise<EgressPolicy>,
  ): Promise<ConvergeReport>;
  /** Makes or forgets one artifact, idempotently. */
  produce(artifact: Artifact): Promise<ArtifactReport>;
  /**
   * Puts the network policy in place for every server (idempotent): a full reconciliation
   * converges it as it converges machines, so an operator's change of an account's blocked ports
   * reaches running servers (src/compute/egress-policy.ts).
   */
  convergeEgress(policy: EgressPolicy): Promise<void>;
  /**
   * What the guest recorded of its first-boot script (script_url), null until it has
   * (script-reports.ts). An engine whose guests run no script answers null: not reported.
   */
  scriptReport(serverUuid: string): Promise<ScriptReport | null>;
  /**
   * The engine's view of the machines of the servers in `only`, compared with the specs given, by
   * server uuid (`now`: the clock's time, which its readings carry); an empty set still asks the
   * engine whether it answers.
   */
  observe(
    specs: ReadonlyMap<string, MachineSpec>,
    now: number,
    only: ReadonlySet<string>,
  ): Promise<Map<string, EngineObservation>>;
  /**
   * Every machine the engine runs for Nubis, read at once (LXD: one listing of every instance),
   * for a full reconciliation to ask page by page (`EngineReading`).
   */
  readAll(now: number): Promise<EngineReading>;
  /**
   * The servers whose machines changed since the last call, as the engine's event stream told
   * (an informer: lxd/lxd-informer.ts); null when everything must be read (the first call, a
   * stream that dropped, COMPUTE_RESYNC_SECONDS passed). An engine with no event stream answers
   * null every time: every reconciliation reads all.
   */
  changes(): ReadonlySet<string> | null;
  /**
   * The counters and use of every running machine, in one batch (the traffic meter's and the
   * graphs' readings, every COMPUTE_USAGE_SECONDS): the one path by which they are fed.
   */
  readUsage(now: number): Promise<Map<string, Pick<EngineObservation, 'traffic' | 'usage'>>>;
  /** The engine's hosts (a single engine is one host). */
  hosts(): Promise<HostReport[]>;
  /** Moves every machine off the host (LXD: POST /1.0/cluster/members/<name>/state {action:"evacuate"}). */
  evacuateHost(name: string): Promise<void>;
  /** Lets the host take machines again, bringing back those evacuated (action "restore"). */
  restoreHost(name: string): Promise<void>;
  close(): void;
}

/** A server as the clock shows it: what a driver needs to time a change or count its traffic. */
export interface MachineFacts {
  uuid: string;
  plan: Plan;
  image: Image;
  /** Clock ms of the server's creation. */
  createdAt: number;
  /** The power it is (or will settle) in, and the transition under way until `actionUntil`. */
  power: string;
  action: string | null;
  actionUntil: number | null;
}

/**
 * A machine's open console (the relay: src/server-console/): bytes both ways, with the flow
 * control the relay needs to keep its buffers bounded, a window size, and its end.
 */
export interface MachineConsole {
  /** Sends keystrokes to the machine; `sent` runs once they have left for the engine. */
  write(data: Buffer, sent: () => void): void;
  resize(cols: number, rows: number): void;
  onData(listener: (data: Buffer) => void): void;
  /** Stops reading the machine's output (its viewer is behind) until `resume`. */
  pause(): void;
  resume(): void;
  /** Called once, when the engine ends the console (the machine stopped) or it is closed. */
  onEnd(listener: (reason: string) => void): void;
  close(): void;
}

/** A console opened, or why the server has none to open (its viewer is closed with 4409 and that reason). */
export type ConsoleOpening = { console: MachineConsole } | { unavailable: string };

/**
 * A compute driver: how long each transition is shown, what a disk copy weighs until the engine
 * says, and a machine's traffic counters; `engine` when it runs real machines (null: the state
 * shown is derived from the clock alone, nothing is queued).
 */
export interface ComputeDriver {
  readonly name: string;
  readonly engine: Engine | null;
  /**
   * How long `transition` is shown for the machine (`sizeGb`: the image a restore writes). With an
   * engine this is only an upper bound: the transition ends when the engine reports.
   */
  transitionMs(transition: Transition, machine: MachineFacts, sizeGb?: number): number;
  /** A disk copy's size in whole GB (an estimate until the engine reports) and how long it takes. */
  imageEstimate(machine: MachineFacts, now: number): { sizeGb: number; durationMs: number };
  /** The machine's NIC counters at `now` as far as the driver knows (null: not running, or not seen yet). */
  trafficCounter(machine: MachineFacts, now: number): TrafficCounter | null;
  /** Opens the console of the server's running machine, `size.cols` × `size.rows`. */
  openConsole(serverUuid: string, size: { cols: number; rows: number }): Promise<ConsoleOpening>;
}
