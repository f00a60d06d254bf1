// The simulated compute driver, the default: no machines, only realistic timings (from the
// SIM_* variables), snapshot sizes and traffic, all derived deterministically from the machine.

import type { Config } from '../config.ts';
import type { ActionTicket, ComputeDriver, Machine, SnapshotTicket } from './compute-driver.ts';

const dayMs = 86_400_000;

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
>;

/** A stable number in [0, 1) from a (random, version 4) uuid, so each machine has its own but repeatable habits. */
function spread(uuid: string): number {
  const value = Number.parseInt(uuid.slice(0, 8), 16);
  return Number.isNaN(value) ? 0.5 : value / 4294967296;
}

const seconds = (value: number): ActionTicket => ({ durationMs: value * 1000 });

export class SimulatedDriver implements ComputeDriver {
  readonly name = 'simulated';
  readonly #t: SimulatedTimings;

  constructor(timings: SimulatedTimings) {
    this.#t = timings;
  }

  async provision(): Promise<ActionTicket> {
    return seconds(this.#t.simProvisionSeconds);
  }

  async start(): Promise<ActionTicket> {
    return seconds(this.#t.simBootSeconds);
  }

  async stop(): Promise<ActionTicket> {
    return seconds(this.#t.simStopSeconds);
  }

  async reboot(): Promise<ActionTicket> {
    return seconds(this.#t.simRebootSeconds);
  }

  async rescue(machine: Machine): Promise<ActionTicket> {
    return seconds(machine.running ? this.#t.simRebootSeconds : this.#t.simBootSeconds);
  }

  async rebuild(): Promise<ActionTicket> {
    return seconds(this.#t.simRebuildSeconds);
  }

  async resize(): Promise<ActionTicket> {
    return seconds(this.#t.simResizeSeconds);
  }

  /** The image's footprint (40% of its minimum disk) plus a GB for every 30 days of use. */
  async snapshot(machine: Machine, now: number): Promise<SnapshotTicket> {
    const used =
      Math.ceil(machine.image.min_disk_gb * 0.4) + Math.floor(Math.max(0, now - machine.createdAt) / (30 * dayMs));
    const sizeGb = Math.max(1, Math.min(machine.plan.disk_gb, used));
    return { sizeGb, durationMs: sizeGb * this.#t.simSnapshotSecondsPerGb * 1000 };
  }

  async restore(_machine: Machine, sizeGb: number): Promise<ActionTicket> {
    return seconds(Math.max(1, sizeGb) * this.#t.simSnapshotSecondsPerGb);
  }

  async remove(): Promise<void> {}

  /** Each machine moves between half and one and a half times the average daily traffic. */
  async bandwidthUsageGb(machines: Machine[], now: number): Promise<Map<string, number>> {
    const today = new Date(now);
    const monthStart = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1);
    const usage = new Map<string, number>();
    for (const machine of machines) {
      const since = Math.max(monthStart, machine.createdAt + this.#t.simProvisionSeconds * 1000);
      const days = Math.max(0, now - since) / dayMs;
      usage.set(
        machine.uuid,
        Math.round(days * this.#t.simBandwidthGbPerDay * (0.5 + spread(machine.uuid)) * 100) / 100,
      );
    }
    return usage;
  }
}
