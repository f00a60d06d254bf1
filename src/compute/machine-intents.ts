// The one entry point services record compute work through, inside their transaction: a change
// of a server's desired machine, or an artifact. It derives the transition the customer sees (for
// as long as the driver says: the simulated timings, or the real driver's upper bound), feeds the
// traffic meter before the machine changes, and, with an engine, queues the job that carries the
// intent out after the commit. The changes and the transition each shows are declared here, once.

import type { Image, Plan } from '../catalog/catalog.types.ts';
import type { Tx } from '../db/database.ts';
import { serverPoweredOff, serverTransition } from '../events/resource-events.ts';
import { injectedComputeFailure } from '../faults/compute-fault.ts';
import type { Platform } from '../platform/context.ts';
import { machineFacts } from './machine-facts.ts';
import { currentPower, type Transition } from './power-state.ts';
import type { ServerRow } from './server-row.ts';
import {
  type Artifact,
  artifactKinds,
  artifacts,
  type JobAction,
  type MachineFacts,
  type Power,
} from './compute-driver.ts';
import { dropWaitingJobs, queueArtifact, queueConverge } from './job-queue.ts';
import { recordTraffic } from './traffic-meter.ts';
import { type ChangedServer, computeRepository } from './compute.repository.ts';
import { machinePresent, reportStatus } from './machine-status.ts';
import { placeNewDisk, placeSimulated } from './simulated-hosts.ts';

/** A snapshot or backup as a restore writes it. */
export interface RestoredImage {
  uuid: string;
  image_id: number;
  size_gb: number;
  /** A copy still being taken is written once it completes. */
  ready_at: number;
}

/** A change of a server's desired machine (or a snapshot of its disk), as a service asks for it. */
export type MachineChange = ServerChange | NetworkChange;

/** Its addresses, floating IPs or VPCs changed: no transition shown. */
export interface NetworkChange {
  kind: 'network';
  server: { uuid: string };
}

/** A change that reads and writes the server's row (locked by the caller). */
export type ServerChange =
  | { kind: 'start'; server: ServerRow }
  | { kind: 'stop'; server: ServerRow }
  | { kind: 'reboot'; server: ServerRow }
  | { kind: 'rescue'; server: ServerRow; enable: boolean }
  | { kind: 'rebuild'; server: ServerRow; image: Image; passwordSealed: string; settlesTo: Power }
  | { kind: 'reinstall'; server: ServerRow; image: Image; passwordSealed: string; settlesTo: Power }
  | { kind: 'resize'; server: ServerRow; plan: Plan }
  | { kind: 'restore'; server: ServerRow; from: RestoredImage; settlesTo: Power }
  | { kind: 'snapshot'; server: ServerRow; snapshot: string; sizeGb: number }
  /** Pulled the plug (out of funds, an operator's force stop): stopped at once, whatever it was doing. */
  | { kind: 'power-off'; server: ServerRow }
  /** The server's row is gone: its machine goes. */
  | { kind: 'remove'; server: ServerRow };

/** A new server, before its row exists: what it is inserted with comes from here. */
export interface NewMachine {
  kind: 'create';
  facts: MachineFacts;
  /** The region it is made in (the simulated driver places it on one of the region's hosts). */
  regionId: number;
  /** A server made from a snapshot still being copied is made once the copy completes. */
  startsAt: number;
}

/** The power and transition a new server is inserted with. */
export interface Provisioning {
  power: Power;
  action: Transition;
  action_until: number;
  engine_error: string | null;
  /** The host the simulated driver placed it on; null with an engine (it reports the host once it made the machine). */
  host: string | null;
}

/** The changes' constructors: services name a change by calling one. */
export const changes = {
  start: (server: ServerRow): ServerChange => ({ kind: 'start', server }),
  stop: (server: ServerRow): ServerChange => ({ kind: 'stop', server }),
  reboot: (server: ServerRow): ServerChange => ({ kind: 'reboot', server }),
  rescue: (server: ServerRow, enable: boolean): ServerChange => ({ kind: 'rescue', server, enable }),
  rebuild: (server: ServerRow, image: Image, passwordSealed: string, settlesTo: Power): ServerChange => ({
    kind: 'rebuild',
    server,
    image,
    passwordSealed,
    settlesTo,
  }),
  reinstall: (server: ServerRow, image: Image, passwordSealed: string, settlesTo: Power): ServerChange => ({
    kind: 'reinstall',
    server,
    image,
    passwordSealed,
    settlesTo,
  }),
  resize: (server: ServerRow, plan: Plan): ServerChange => ({ kind: 'resize', server, plan }),
  restore: (server: ServerRow, from: RestoredImage, settlesTo: Power): ServerChange => ({
    kind: 'restore',
    server,
    from,
    settlesTo,
  }),
  snapshot: (server: ServerRow, snapshot: string, sizeGb: number): ServerChange => ({
    kind: 'snapshot',
    server,
    snapshot,
    sizeGb,
  }),
  network: (server: { uuid: string }): NetworkChange => ({ kind: 'network', server }),
  powerOff: (server: ServerRow): ServerChange => ({ kind: 'power-off', server }),
  remove: (server: ServerRow): ServerChange => ({ kind: 'remove', server }),
  create: (facts: MachineFacts, startsAt: number, regionId: number): NewMachine => ({
    kind: 'create',
    facts,
    startsAt,
    regionId,
  }),
};

/** A change shown as a transition: which, how the server settles, and what else it sets. */
interface Shown {
  transition: Transition;
  settlesTo: Power;
  /** What the change sets besides the transition, its power and times (written with them). */
  sets: Omit<ChangedServer, 'updatedAt'>;
  startsAt?: number;
  sizeGb?: number;
}

/** The transition an artifact shows on its server while it is made (the others show none). */
export const artifactTransitions: Partial<Record<JobAction, Transition>> = { takeSnapshot: 'snapshotting' };

/**
 * The power a change starts from: the engine's truth once no transition is under way (a machine
 * stopped outside Nubis can be started again), else the power the transition settles in.
 */
const settled = (server: ServerRow, now: number): Power => currentPower(server, now);

/** The transition each change shows (null: none, it takes effect at once or unseen). */
function shownBy(change: ServerChange, now: number): Shown | null {
  const { server } = change;
  // A power intent the engine is to apply once (see MachineSpec.powerGeneration).
  const powerIntent = { powerGeneration: server.power_generation + 1 };
  switch (change.kind) {
    case 'start':
      return { transition: 'booting', settlesTo: 'running', sets: powerIntent };
    case 'stop':
      return { transition: 'stopping', settlesTo: 'stopped', sets: powerIntent };
    case 'reboot':
      return {
        transition: settled(server, now) === 'running' ? 'rebooting' : 'booting',
        settlesTo: 'running',
        sets: powerIntent,
      };
    case 'rescue':
      return {
        transition: settled(server, now) === 'running' ? 'rebooting' : 'booting',
        settlesTo: 'running',
        sets: { rescue: change.enable, ...powerIntent },
      };
    case 'rebuild':
    case 'reinstall':
      return {
        transition: change.kind === 'rebuild' ? 'rebuilding' : 'reinstalling',
        settlesTo: change.settlesTo,
        sets: {
          imageId: change.image.id,
          sourceSnapshotUuid: null,
          passwordSealed: change.passwordSealed,
          rescue: false,
          diskGeneration: server.disk_generation + 1,
          // The new disk runs script_url again at its first boot: its outcome is read anew.
          scriptOutcome: null,
          ...powerIntent,
        },
      };
    case 'resize':
      return { transition: 'resizing', settlesTo: settled(server, now), sets: { planId: change.plan.id } };
    case 'restore':
      return {
        transition: 'restoring',
        settlesTo: change.settlesTo,
        sets: {
          imageId: change.from.image_id,
          sourceSnapshotUuid: change.from.uuid,
          rescue: false,
          diskGeneration: server.disk_generation + 1,
          // The restored disk holds its own record of the script (or runs it): read anew.
          scriptOutcome: null,
          ...powerIntent,
        },
        startsAt: change.from.ready_at,
        sizeGb: change.from.size_gb,
      };
    case 'snapshot':
      return { transition: 'snapshotting', settlesTo: settled(server, now), sets: {}, sizeGb: change.sizeGb };
    case 'power-off':
    case 'remove':
      return null;
  }
}

/** The power a change of power asks for from a command ('start', 'stop', 'reboot'); null: already so. */
export function powerChange(command: 'start' | 'stop' | 'reboot', server: ServerRow, now: number): ServerChange | null {
  const stopped = settled(server, now) === 'stopped';
  switch (command) {
    case 'start':
      return stopped ? changes.start(server) : null;
    case 'stop':
      return stopped ? null : changes.stop(server);
    case 'reboot':
      // A server in a transition that ends running (provisioning, booting…) restarts as one that runs.
      return changes.reboot(server);
  }
}

/** True when the change powers a stopped server on (what an account out of funds may not do). */
export function powersOn(change: ServerChange, now: number): boolean {
  return settled(change.server, now) === 'stopped' && shownBy(change, now)?.settlesTo === 'running';
}

/** A disk copy's size (an estimate until the engine reports) and how long the server shows it. */
export function imageEstimate(ctx: Platform, server: ServerRow, now: number): { sizeGb: number; durationMs: number } {
  return ctx.compute.imageEstimate(machineFacts(ctx, server), now);
}

const isArtifactKind: ReadonlySet<string> = new Set(artifactKinds);

function isArtifact(intent: MachineChange | NewMachine | Artifact): intent is Artifact {
  return isArtifactKind.has(intent.kind);
}

/** The machine's counters before it changes go into the meter (a stop or a new disk restarts them). */
async function meterBefore(ctx: Platform, trx: Tx, server: ServerRow, now: number): Promise<void> {
  const reading = ctx.compute.trafficCounter(machineFacts(ctx, server), now);
  if (reading) await recordTraffic(trx, server.uuid, reading);
}

/**
 * A sweep pulls the plug: the server, read running under its lock, is powered off at once,
 * whatever transition it was in, and its event says why (out of funds, bandwidth overage).
 */
export async function powerOffBySweep(ctx: Platform, trx: Tx, server: ServerRow, reason: string): Promise<void> {
  await recordIntent(ctx, trx, changes.powerOff(server));
  await serverPoweredOff(ctx, trx, server, reason);
}

/** Every intent a service records. */
export type Intent = MachineChange | NewMachine | Artifact;

/** What recording an intent answers: the server's row as changed, or what a new server is inserted with; nothing for the rest. */
export type Recorded<I extends Intent> = I extends ServerChange
  ? ServerRow
  : I extends NewMachine
    ? Provisioning
    : undefined;

/**
 * Records a compute intent in the caller's transaction (which holds the server's lock):
 * - a change of a server's machine: its row takes the change and the transition shown, and the
 *   engine's job is queued; answers the row as updated;
 * - a new server: what it is inserted with (the job is queued under its uuid);
 * - a network change or an artifact: its job is queued.
 */
export async function recordIntent<I extends Intent>(ctx: Platform, trx: Tx, intent: I): Promise<Recorded<I>> {
  // One signature for every intent; the answer's type follows the intent's (Recorded).
  return (await recordAny(ctx, trx, intent)) as Recorded<I>;
}

async function recordAny(ctx: Platform, trx: Tx, intent: Intent): Promise<ServerRow | Provisioning | undefined> {
  const engine = ctx.compute.engine;
  const now = ctx.clock.now();
  if (isArtifact(intent)) {
    if (engine) await queueArtifact(ctx, trx, intent);
    return undefined;
  }
  if (intent.kind === 'create') {
    if (engine) await queueConverge(ctx, trx, intent.facts.uuid);
    const transition: Transition = 'provisioning';
    const failure = injectedComputeFailure(trx, transition);
    return {
      power: failure ? 'stopped' : 'running',
      action: transition,
      // From the creation instant, not this later read of the clock: the server was asked for then.
      action_until:
        Math.max(intent.facts.createdAt, intent.startsAt) + ctx.compute.transitionMs(transition, intent.facts),
      engine_error: failure,
      // The simulated driver is its own engine: it places the machine now (a real engine reports where it did).
      host: engine ? null : await placeSimulated(ctx, trx, intent.regionId),
    };
  }
  if (intent.kind === 'network') {
    if (engine) await queueConverge(ctx, trx, intent.server.uuid);
    return undefined;
  }
  const { server } = intent;
  await meterBefore(ctx, trx, server, now);
  switch (intent.kind) {
    case 'remove':
      if (engine) {
        await dropWaitingJobs(trx, server.uuid);
        await queueConverge(ctx, trx, server.uuid);
      }
      return server;
    case 'power-off': {
      const updated = await computeRepository.changeServer(trx, server.id, {
        power: 'stopped',
        transition: null,
        transitionUntil: null,
        powerGeneration: server.power_generation + 1,
        updatedAt: now,
      });
      if (engine) await queueConverge(ctx, trx, server.uuid);
      return updated;
    }
  }
  const shown = shownBy(intent, now)!;
  if (engine) {
    if (intent.kind === 'snapshot') await queueArtifact(ctx, trx, artifacts.snapshot(intent.snapshot, server.uuid));
    else await queueConverge(ctx, trx, server.uuid);
  }
  // An injected compute failure (emulator): the action does not take; the server settles as it was.
  const failure = injectedComputeFailure(trx, shown.transition);
  const durationMs = ctx.compute.transitionMs(shown.transition, machineFacts(ctx, server), shown.sizeGb);
  const updated = await computeRepository.changeServer(trx, server.id, {
    ...shown.sets,
    ...(failure ? { engineError: failure } : {}),
    power: failure ? (server.power as Power) : shown.settlesTo,
    transition: shown.transition,
    transitionUntil: Math.max(now, shown.startsAt ?? now) + durationMs,
    updatedAt: now,
  });
  await serverTransition(ctx, trx, updated);
  // The simulated driver is its own engine: a new disk it makes is there at once (a machine lost by
  // an emulator fault comes back so); a real engine reports its new machine when it made it.
  if (!engine && server.conditions !== null && updated.disk_generation !== server.disk_generation)
    await reportStatus(ctx, trx, server.uuid, { conditions: [machinePresent] });
  // A new disk it makes lands on another host when its own is out of reach or to be avoided (a recovery).
  if (!engine && updated.disk_generation !== server.disk_generation) await placeNewDisk(ctx, trx, updated);
  return updated;
}
