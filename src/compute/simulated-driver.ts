// The simulated compute driver, the default: no machines and no engine, so nothing is queued and
// the state shown is derived from the clock alone; realistic timings (the SIM_* variables),
// snapshot sizes and NIC counters, all derived deterministically from the machine.

import { meteredBytes } from './traffic-meter.ts';
import type { Config } from '../config.ts';
import { shownPower, type Transition } from './power-state.ts';
import type { ComputeDriver, ConsoleOpening, MachineFacts, TrafficCounter } from './compute-driver.ts';

const dayMs = 86_400_000;

/** Why a simulated server has no console (closed 4409, as documented). */
export const NO_MACHINE = 'there is no machine behind this server: the simulated driver runs none';
const gib = 1024 ** 3;

export type SimulatedTimings = Pick<
  Config,
  | 'simProvisionSeconds'
  | 'simBootSeconds'
  | 'simStopSeconds'
  | 'simRebootSeconds'
  | 'simRebuildSeconds'
  | 'simResizeSeconds'
  | 'simSnapshotSecondsPerGb'
  | 'simBandwidthGbPerDay'
  | 'simInboundGbPerDay'
  | 'trafficMetered'
>;

/** A stable number in [0, 1) from a (random, version 4) uuid, so each machine has its own but repeatable habits. */
function spread(uuid: string): number {
  const value = Number.parseInt(uuid.slice(0, 8), 16);
  return Number.isNaN(value) ? 0.5 : value / 4294967296;
}

export class SimulatedDriver implements ComputeDriver {
  readonly name = 'simulated';
  readonly engine = null;
  readonly #t: SimulatedTimings;

  constructor(timings: SimulatedTimings) {
    this.#t = timings;
  }

  transitionMs(transition: Transition, _machine: MachineFacts, sizeGb = 0): number {
    const t = this.#t;
    const seconds: Record<Transition, () => number> = {
      provisioning: () => t.simProvisionSeconds,
      booting: () => t.simBootSeconds,
      stopping: () => t.simStopSeconds,
      rebooting: () => t.simRebootSeconds,
      rebuilding: () => t.simRebuildSeconds,
      reinstalling: () => t.simRebuildSeconds,
      resizing: () => t.simResizeSeconds,
      // Writing or copying an image takes its size's time.
      restoring: () => Math.max(1, sizeGb) * t.simSnapshotSecondsPerGb,
      snapshotting: () => Math.max(1, sizeGb) * t.simSnapshotSecondsPerGb,
    };
    return seconds[transition]() * 1000;
  }

  /** The image's footprint (40% of its minimum disk) plus a GB for every 30 days of use. */
  imageEstimate(machine: MachineFacts, now: number): { sizeGb: number; durationMs: number } {
    const used =
      Math.ceil(machine.image.min_disk_gb * 0.4) + Math.floor(Math.max(0, now - machine.createdAt) / (30 * dayMs));
    const sizeGb = Math.max(1, Math.min(machine.plan.disk_gb, used));
    return { sizeGb, durationMs: sizeGb * this.#t.simSnapshotSecondsPerGb * 1000 };
  }

  /**
   * A running machine moves between half and one and a half times the average daily traffic
   * (its own rate); one stopped, or in a transition, moves none. Its counters start at its last
   * boot: the end of the transition it settled running from.
   */
  trafficCounter(machine: MachineFacts, now: number): TrafficCounter | null {
    const fields = { power: machine.power, action: machine.action, action_until: machine.actionUntil };
    if (shownPower(fields, now) !== 'running') return null;
    const since = machine.actionUntil ?? machine.createdAt;
    const up = Math.max(0, now - since);
    const sentPerMs = (this.#t.simBandwidthGbPerDay * (0.5 + spread(machine.uuid)) * gib) / dayMs;
    const receivedPerMs = (this.#t.simInboundGbPerDay * gib) / dayMs;
    const bytes = meteredBytes(up * sentPerMs, up * receivedPerMs, this.#t.trafficMetered);
    return { epoch: `booted ${since}`, bytes: Math.round(bytes), at: now, since };
  }

  async openConsole(): Promise<ConsoleOpening> {
    return { unavailable: NO_MACHINE };
  }
}
