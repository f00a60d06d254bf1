// An engine stand-in that answers reconciliation as the informer-fed LXD driver does (no LXD
// needed): it holds a machine per server, tells which changed since the last call (`changes`:
// null the first time, after a dropped stream or when told to resync), reads only the machines it
// is asked for, and counts what each round read. For the reconciliation tests and the fleet bench.

import type {
  ComputeDriver,
  EgressPolicy,
  Engine,
  EngineObservation,
  EngineReading,
  HostReport,
  MachineSpec,
  Power,
  TrafficCounter,
} from '../../src/compute/compute-driver.ts';
import { batches } from '../../src/db/batches.ts';

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

/**
 * An engine's `observe` and `readAll` from what a stand-in models in a few lines: the servers it
 * has machines for, and the machine of one (undefined: none), given its spec where Nubis has one.
 */
export function observedBy(
  servers: () => Iterable<string>,
  machineOf: (uuid: string, spec: MachineSpec | undefined) => EngineObservation | undefined,
): Pick<Engine, 'observe' | 'readAll'> {
  const observe = (specs: ReadonlyMap<string, MachineSpec>, only: ReadonlySet<string>) => {
    const seen = new Map<string, EngineObservation>();
    for (const uuid of only) {
      const machine = machineOf(uuid, specs.get(uuid));
      if (machine) seen.set(uuid, machine);
    }
    return seen;
  };
  return {
    observe: async (specs, _now, only) => observe(specs, only),
    readAll: async (): Promise<EngineReading> => {
      const uuids = [...servers()];
      return { servers: (size) => batches(uuids, size), observe };
    },
  };
}

/**
 * The uuid of the `index`th machine of a stand-in's fleet (from 1), and back: the fleet bench
 * gives its seeded servers these, so the stand-in derives each machine from its uuid and holds
 * nothing a machine (an engine's memory is not Nubis's to measure).
 */
export function fleetUuid(index: number): string {
  const hex = index.toString(16).padStart(12, '0');
  return `${hex.slice(-8)}-0000-4000-8000-${hex}`;
}

export function fleetIndex(uuid: string): number | null {
  const match = /^[0-9a-f]{8}-0000-4000-8000-([0-9a-f]{12})$/.exec(uuid);
  return match && fleetUuid(Number.parseInt(match[1] as string, 16)) === uuid
    ? Number.parseInt(match[1] as string, 16)
    : null;
}

export class EngineStandIn implements Engine {
  /** Machines made or changed one by one (a fleet's machine set here is this one from then on). */
  readonly machines = new Map<string, StandInMachine>();
  /** A fleet of identical machines (`fleet`: those of fleetUuid 1 to its size), minus those deleted since. */
  #fleetSize = 0;
  #fleetMachine: StandInMachine = { power: 'running', diskGeneration: 0, powerGeneration: 0 };
  #deleted = new Set<string>();
  #changed = new Set<string>();
  #full = true;
  /** Machines read by `observe` (and a reading's), and the engine's calls, since `resetCounts`. */
  read = 0;
  calls = 0;
  /** While set, every call fails as an engine out of reach does. */
  unreachable = false;
  /** Hosts that stopped answering: no event tells it, only the engine's list of hosts. */
  readonly offline = new Set<string>();

  /** A machine made, or changed outside Nubis: its event is heard. */
  set(uuid: string, machine: StandInMachine): void {
    this.machines.set(uuid, machine);
    this.#deleted.delete(uuid);
    this.#changed.add(uuid);
  }

  /** A machine deleted (behind Nubis's back): its event is heard. */
  delete(uuid: string): void {
    this.machines.delete(uuid);
    if (fleetIndex(uuid) !== null) this.#deleted.add(uuid);
    this.#changed.add(uuid);
  }

  /** Machines the engine has had since before Nubis listened (no event is heard), all alike: fleetUuid 1 to `size`. */
  fleet(size: number, machine: StandInMachine): void {
    this.#fleetMachine = machine;
    this.#fleetSize = size;
  }

  /** The machine of a server, as the engine has it now. */
  machine(uuid: string): StandInMachine | undefined {
    const own = this.machines.get(uuid);
    if (own) return own;
    const index = fleetIndex(uuid);
    const inFleet = index !== null && index >= 1 && index <= this.#fleetSize;
    return inFleet && !this.#deleted.has(uuid) ? this.#fleetMachine : undefined;
  }

  /** Every server uuid the engine has a machine for. */
  *#servers(): Generator<string> {
    for (let index = 1; index <= this.#fleetSize; index++) {
      const uuid = fleetUuid(index);
      if (!this.#deleted.has(uuid) && !this.machines.has(uuid)) yield uuid;
    }
    yield* this.machines.keys();
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
    only: ReadonlySet<string>,
  ): Promise<Map<string, EngineObservation>> {
    this.calls++;
    if (this.unreachable) throw new Error('the engine stand-in is out of reach');
    return this.#observed(only);
  }

  /** Every machine, as one call of the engine: the reading derives each page's machines on demand. */
  async readAll(): Promise<EngineReading> {
    this.calls++;
    if (this.unreachable) throw new Error('the engine stand-in is out of reach');
    const servers = () => this.#servers();
    return {
      *servers(size: number) {
        let page: string[] = [];
        for (const uuid of servers()) {
          page.push(uuid);
          if (page.length === size) {
            yield page;
            page = [];
          }
        }
        if (page.length) yield page;
      },
      observe: (_specs, only) => this.#observed(only),
    };
  }

  #observed(only: Iterable<string>): Map<string, EngineObservation> {
    const seen = new Map<string, EngineObservation>();
    for (const uuid of only) {
      const machine = this.machine(uuid);
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

  /** It has no network to hold rules on, but reads the policy as an engine would (Nubis's part of the work). */
  async convergeEgress(policy: EgressPolicy): Promise<void> {
    for await (const _servers of policy.servers());
  }

  /** Its running machines, with no counters (it counts no traffic). */
  async readUsage(): Promise<Map<string, Pick<EngineObservation, 'traffic' | 'usage'>>> {
    if (this.unreachable) throw new Error('the engine stand-in is out of reach');
    const read = new Map<string, Pick<EngineObservation, 'traffic' | 'usage'>>();
    for (const uuid of this.#servers())
      if (this.machine(uuid)?.power === 'running') read.set(uuid, { traffic: null, usage: null });
    return read;
  }

  async hosts(): Promise<HostReport[]> {
    if (this.unreachable) throw new Error('the engine stand-in is out of reach');
    const machines = [...this.machines.values(), ...(this.#fleetSize ? [this.#fleetMachine] : [])];
    const names = new Set([standInHost, ...machines.map((m) => m.host ?? standInHost)]);
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
