// An engine stand-in that answers reconciliation as the informer-fed LXD driver does (no LXD
// needed): it holds a machine per server, tells which changed since the last call (`changes`:
// null the first time, after a dropped stream or when told to resync), reads only the machines it
// is asked for, and counts what each round read. For the reconciliation tests and the fleet bench.

import type {
  ComputeDriver,
  EgressPolicy,
  Engine,
  EngineObservation,
  HostReport,
  MachineSpec,
  Power,
  TrafficCounter,
} from '../../src/compute/compute-driver.ts';

export interface StandInMachine {
  power: Power;
  diskGeneration: number;
  powerGeneration: number;
  /** The host it runs on (its engine's one host when absent). */
  host?: string;
}

/**
 * What a stand-in engine answers for what it does not model (spread into one): no event stream
 * (every round reads all), no guest that runs a script, no network to hold rules, no counters.
 */
export const unmodelled = {
  changes: (): ReadonlySet<string> | null => null,
  scriptReport: async () => null,
  convergeEgress: async (_policy: EgressPolicy) => {},
  readUsage: async () => new Map<string, Pick<EngineObservation, 'traffic' | 'usage'>>(),
} satisfies Pick<Engine, 'changes' | 'scriptReport' | 'convergeEgress' | 'readUsage'>;

/** The stand-in's one host, where a machine of no host of its own runs. */
export const standInHost = 'stand-in';

export class EngineStandIn implements Engine {
  readonly machines = new Map<string, StandInMachine>();
  #changed = new Set<string>();
  #full = true;
  /** Machines read by `observe`, and its calls, since `resetCounts`. */
  read = 0;
  calls = 0;
  /** While set, every call fails as an engine out of reach does. */
  unreachable = false;
  /** Hosts that stopped answering: no event tells it, only the engine's list of hosts. */
  readonly offline = new Set<string>();

  /** A machine made, or changed outside Nubis: its event is heard. */
  set(uuid: string, machine: StandInMachine): void {
    this.machines.set(uuid, machine);
    this.#changed.add(uuid);
  }

  /** A machine deleted (behind Nubis's back): its event is heard. */
  delete(uuid: string): void {
    this.machines.delete(uuid);
    this.#changed.add(uuid);
  }

  /** The event stream dropped (or the resync is due): the next round reads everything. */
  dropStream(): void {
    this.#full = true;
  }

  resetCounts(): void {
    this.read = 0;
    this.calls = 0;
  }

  changes(): ReadonlySet<string> | null {
    const changed = this.#changed;
    this.#changed = new Set();
    if (!this.#full) return changed;
    this.#full = false;
    return null;
  }

  async observe(
    _specs: ReadonlyMap<string, MachineSpec>,
    _now: number,
    only?: ReadonlySet<string>,
  ): Promise<Map<string, EngineObservation>> {
    this.calls++;
    if (this.unreachable) throw new Error('the engine stand-in is out of reach');
    const seen = new Map<string, EngineObservation>();
    for (const uuid of only ?? this.machines.keys()) {
      const machine = this.machines.get(uuid);
      if (!machine) continue;
      this.read++;
      seen.set(uuid, {
        power: machine.power,
        traffic: null,
        usage: null,
        drift: [],
        diskGeneration: machine.diskGeneration,
        powerGeneration: machine.powerGeneration,
        host: machine.host ?? standInHost,
      });
    }
    return seen;
  }

  /** Its machines run no first-boot script: nothing is ever reported. */
  async scriptReport(): Promise<null> {
    return null;
  }

  /** It has no network to hold rules on. */
  async convergeEgress(_policy: EgressPolicy): Promise<void> {}

  /** Its running machines, with no counters (it counts no traffic). */
  async readUsage(): Promise<Map<string, Pick<EngineObservation, 'traffic' | 'usage'>>> {
    if (this.unreachable) throw new Error('the engine stand-in is out of reach');
    const running = [...this.machines].filter(([, machine]) => machine.power === 'running');
    return new Map(running.map(([uuid]) => [uuid, { traffic: null, usage: null }]));
  }

  async hosts(): Promise<HostReport[]> {
    if (this.unreachable) throw new Error('the engine stand-in is out of reach');
    const names = new Set([standInHost, ...[...this.machines.values()].map((m) => m.host ?? standInHost)]);
    return [...names].sort().map((name) => ({
      name,
      status: this.offline.has(name) ? 'offline' : 'online',
      message: this.offline.has(name) ? 'No heartbeat' : 'Fully operational',
      groups: ['default'],
      capacity: { vcpus: 8, memoryBytes: 16 * 1024 ** 3, diskBytes: null },
    }));
  }

  async evacuateHost(): Promise<never> {
    throw new Error('the engine stand-in moves nothing');
  }

  async restoreHost(): Promise<never> {
    throw new Error('the engine stand-in moves nothing');
  }

  async converge(): Promise<never> {
    throw new Error('the engine stand-in converges nothing');
  }

  async produce(): Promise<never> {
    throw new Error('the engine stand-in produces nothing');
  }

  close(): void {}
}

/** A compute driver whose engine is the stand-in. */
export function standInDriver(engine: EngineStandIn): ComputeDriver {
  return {
    name: 'stand-in',
    engine,
    transitionMs: () => 60_000,
    imageEstimate: () => ({ sizeGb: 1, durationMs: 60_000 }),
    trafficCounter: (): TrafficCounter | null => null,
    openConsole: async () => ({ unavailable: 'the engine stand-in has no console' }),
  };
}
