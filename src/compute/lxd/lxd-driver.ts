// The real compute driver on LXD or Incus (COMPUTE_DRIVER=lxd). In the API's transaction it only
// bounds how long a transition is shown; the job runner then calls `converge`, which compares the
// engine's instance with the server's spec and makes the smallest change (idempotently: a retried
// job finds half its work done, and a disk generation already made is never made again), or
// `produce` for an artifact; `observe` reads the instances reconciliation asks for (every one, or
// those the informer heard change: lxd-informer.ts), `readUsage` the running ones' counters;
// `convergeEgress` puts the blocked-port rules on the bridges (converge does it before a machine's network).

import type { Config } from '../../config.ts';
import { type LxdUsageState, usageOf } from './instance-usage.ts';
import { parseScriptStatus, type ScriptReport } from '../script-outcome.ts';
import { scriptRunner } from './images.ts';
import { cloudInitNetworkConfig } from './cloud-init-network.ts';
import { applyBridgeAcls, bridgeAclsOf } from './lxd-acls.ts';
import { createHash, randomUUID } from 'node:crypto';
import type {
  Artifact,
  ArtifactHandlers,
  ArtifactReport,
  ComputeDriver,
  ConsoleOpening,
  ConvergeReport,
  EgressPolicy,
  Engine,
  EngineObservation,
  EngineReading,
  HostReport,
  MachineFacts,
  MachineSpec,
  Power,
  TrafficCounter,
} from '../compute-driver.ts';
import { MachineLost } from '../compute-driver.ts';
import { LxdClient, LxdError } from './lxd-client.ts';
import { type CapacityCache, lxdHosts, setHostState } from './lxd-hosts.ts';
import { clusterMemberNames, clusterVpcNetwork, ensureClusterVpcNetwork } from './cluster-networks.ts';
import { openLxdConsole } from './console.ts';
import { LxdInformer } from './lxd-informer.ts';
import { batches } from '../../db/batches.ts';
import {
  createRescue,
  lendNic,
  lentNicKey,
  pushRescueFiles,
  rescueHostname,
  shiftToItsMap,
  takeNicBack,
} from './rescue.ts';
import {
  imageAlias,
  instanceName,
  instanceType,
  profileName,
  regionNetwork,
  rescueInstanceName,
  serverOfInstance,
  serverOfRescueInstance,
  snapshotAlias,
  vpcNetwork,
} from './lxd-names.ts';
import { bridgeOf, formatAddress, ipv6FirstHost, nicRoutes, parsePrefix } from './lxd-networks.ts';
import { meteredBytes, type TrafficMetered } from '../traffic-meter.ts';
import {
  imageConfig,
  isolationConfig,
  oneAtATime,
  publicNicSecurity,
  rootDiskLimits,
  vpcNicSecurity,
} from './lxd-isolation.ts';
import { engineTurn } from './engine-turn.ts';

interface InstanceBody {
  name: string;
  type?: string;
  status?: string;
  config: Record<string, string>;
  devices: Record<string, Record<string, string>>;
  profiles: string[];
  description?: string;
  ephemeral?: boolean;
  architecture?: string;
  stateful?: boolean;
  /** The cluster member the instance is on ("none" on an engine that is not clustered). */
  location?: string;
}

interface InstanceState extends LxdUsageState {
  status: string;
  /** The instance's init (container) or hypervisor (VM) process: a new one at every start. */
  pid?: number;
  network: Record<
    string,
    { addresses: { family: string; address: string }[]; counters: { bytes_received: number; bytes_sent: number } }
  > | null;
}

/** An instance as the list answers it with recursion=2. */
type ListedInstance = InstanceBody & { state: InstanceState | null };

const gb = 1024 ** 3;
/** Properties of a snapshot's or backup's engine image: the server it was taken from, and which it is. */
const imageServerProperty = 'nubis.server';
const imageKindProperty = 'nubis.kind';
/**
 * What the server's instance keeps of the spec it was converged to: the disk generation it was
 * made for (absent on instances made before generations: 0), that disk's first-boot files
 * (`pending` until pushed), the power generation last applied (absent on a new disk: its power is
 * still to apply), and the network script applied.
 */
const diskKey = 'user.nubis.disk';
const firstBootKey = 'user.nubis.first-boot';
const powerKey = 'user.nubis.power';
const networkKey = 'user.nubis.network';
const cloudNetworkKey = 'cloud-init.network-config';
/**
 * The cloud-init instance id of the server's disk, which the engine serves as the guest's
 * `instance-id` (the engine's own key), and Nubis's copy of it. LXD makes a new one whenever a NIC is
 * added or removed or a `cloud-init.*` key changes (a floating IP or VPC attached, eth0 lent to a
 * rescue system): cloud-init would then take the server for a new one at its next boot and run its
 * per-instance modules again (the root password it was created with put back, the image's unit
 * making new host keys). Nubis puts its copy back after such a change and before every start; a new
 * disk (a create, rebuild, reinstall, restore, or a server made from a snapshot) is a new instance, with a new id.
 */
const engineCloudInitIdKey = 'volatile.cloud-init.instance-id';
const cloudInitIdKey = 'user.nubis.cloud-init-id';

export function lxdClientFrom(config: Config): LxdClient {
  return new LxdClient({
    url: config.lxdUrl,
    clientCert: config.lxdClientCert || undefined,
    clientKey: config.lxdClientKey || undefined,
    serverCert: config.lxdServerCert || undefined,
    project: config.lxdProject,
  });
}

/**
 * The shell script a Nubis image runs at boot and on every network change: the server's IPv4 as a
 * /32 with its gateway on-link, its IPv6 and floating addresses on eth0 (each IPv6 /64 answered on
 * its first host, ::1) with the IPv6 route through its bridge, the VPC addresses on eth1...
 * Addresses already in place stay, so a session on one survives a change to another.
 *
 * The /32: the bridge's DHCP hands out the pool's prefix, with which a server would reach a
 * neighbour on its bridge directly (ARP), and port isolation (lxd-isolation.ts) keeps their
 * frames apart. With no neighbour on-link, what a server sends a neighbour goes by the host,
 * which routes it back out on the bridge: port isolation allows that, and the NIC filters see it.
 * (NUBIS_PROC, where /proc is, is for the script's own test only.)
 */
export function networkScript(spec: Pick<MachineSpec, 'region' | 'ipv4' | 'ipv6' | 'floating' | 'vpcs'>): string {
  // The server's own IPv4 first (the source the kernel picks), then its floating ones: all /32s.
  const v4 = [...(spec.ipv4 ? [spec.ipv4] : []), ...spec.floating.filter((a) => !a.includes(':'))].map(
    (a) => `${a}/32`,
  );
  // The server's own /64 comes as its block (2001:db8:1:2a::), shown by the API as its ::1.
  const v6 = [...(spec.ipv6 ? [spec.ipv6] : []), ...spec.floating.filter((a) => a.includes(':'))].map(
    (a) => `${ipv6FirstHost(a)}/64`,
  );
  const bridge = bridgeOf(spec.region, spec.ipv4);
  const gateway = bridge?.ipv6;
  const pool = bridge ? parsePrefix(bridge.pool) : null;
  const lines = [
    '#!/bin/sh',
    '# Written by Nubis: the public, floating and private (VPC) addresses of this server.',
    '# hold FAMILY WANTED FOUND...: removes from eth0 what is found but not wanted, adds what is missing.',
    'hold() {',
    '  family=$1 wanted=" $2 "; shift 2',
    '  for a in "$@"; do case "$wanted" in *" $a "*) ;; *) ip -"$family" addr del "$a" dev eth0 ;; esac; done',
    '  for a in $wanted; do case " $* " in *" $a "*) ;; *) ip -"$family" addr add "$a" dev eth0 ;; esac; done',
    '}',
    // The host redirects a packet for a neighbour to the neighbour itself (IPv6's redirect even
    // names its MAC), which port isolation drops: the way to a neighbour stays the host.
    `for family in ipv4 ipv6; do echo 0 > "\${NUBIS_PROC:-/proc}/sys/net/$family/conf/eth0/accept_redirects"; done 2>/dev/null`,
    // Every IPv4 address is a /32, the server's own and its floating ones.
    `hold 4 "${v4.join(' ')}" $(ip -4 -o addr show dev eth0 | awk '$4 ~ /\\/32$/ {print $4}')`,
  ];
  if (spec.ipv4 && pool && pool.bits < 32) {
    const gateway4 = formatAddress(4, pool.network + 1n);
    // The gateway on-link before the pool's prefix (from DHCP) goes, so the host never loses the
    // way back; the server's own address as the source (among /32s the kernel would take the first).
    lines.push(
      `ip -4 route replace ${gateway4} dev eth0 scope link src ${spec.ipv4}`,
      `for a in $(ip -4 -o addr show dev eth0 | awk '$4 == "${spec.ipv4}/${pool.bits}" {print $4}'); do ip -4 addr del "$a" dev eth0; done`,
      `ip -4 route replace default via ${gateway4} dev eth0 src ${spec.ipv4}`,
    );
  }
  lines.push(`hold 6 "${v6.join(' ')}" $(ip -6 -o addr show dev eth0 scope global | awk '{print $4}')`);
  if (v6.length && gateway)
    lines.push(
      `ip -6 route replace ${gateway.subnet} dev eth0`,
      `ip -6 route replace default via ${gateway.gateway} dev eth0`,
    );
  spec.vpcs.forEach((vpc, index) => {
    const dev = `eth${index + 1}`;
    const prefix = vpc.cidr.split('/')[1];
    lines.push(
      `ip link set ${dev} up`,
      `ip -4 addr flush dev ${dev}`,
      `ip addr add ${vpc.address}/${prefix} dev ${dev}`,
    );
  });
  return `${lines.join('\n')}\nexit 0\n`;
}

/** What the instance keeps (`user.nubis.network`) of the network script last applied: its digest. */
function networkDigest(script: string): string {
  return createHash('sha256').update(script).digest('hex').slice(0, 16);
}

/** cloud-init user data for images that run cloud-init (the Nubis images also read the files pushed). */
export function userData(spec: MachineSpec): string {
  const lines = [
    '#cloud-config',
    `hostname: ${JSON.stringify(spec.hostname)}`,
    `fqdn: ${JSON.stringify(spec.hostname)}`,
    // The server's hostname as given (web-1.example.com), as `hostname` prints it.
    'prefer_fqdn_over_hostname: true',
    'preserve_hostname: false',
    // The network config (cloud-init-network.ts) applied at every boot, not only the first: the
    // engine's copy follows floating IPs attached since, and a reboot brings them in.
    'updates:',
    '  network:',
    '    when: [boot-new-instance, boot]',
    'disable_root: false',
    'ssh_pwauth: true',
    'chpasswd:',
    '  expire: false',
    '  users:',
    `    - {name: root, password: ${JSON.stringify(spec.rootPassword())}, type: text}`,
  ];
  if (spec.sshPublicKey)
    lines.push(
      'users:',
      '  - name: root',
      '    ssh_authorized_keys:',
      `      - ${JSON.stringify(spec.sshPublicKey.trim())}`,
    );
  // The runner the driver pushed (images.ts) runs it once and records its outcome.
  if (spec.scriptUrl) lines.push('runcmd:', '  - [sh, /etc/nubis/run-script]');
  return `${lines.join('\n')}\n`;
}

export class LxdDriver implements ComputeDriver, Engine {
  readonly name = 'lxd';
  readonly engine: Engine = this;
  readonly #config: Config;
  readonly #client: LxdClient;
  /** Each machine's NIC counters as last read (reconciliation, or a converge), by server uuid. */
  readonly #traffic = new Map<string, TrafficCounter>();
  /**
   * Containers are made one at a time, each getting its own id range (oneAtATime, lxd-isolation.ts):
   * in this process, then on the engine among every process driving it (engine-turn.ts).
   */
  readonly #inProcess = oneAtATime();
  readonly #onEngine: <T>(work: () => Promise<T>) => Promise<T>;
  readonly #making = <T>(work: () => Promise<T>): Promise<T> => this.#inProcess(() => this.#onEngine(work));
  #poolDriver: string | null = null;
  /** Opened by the first reconciliation that asks what changed. */
  #informer: LxdInformer | null = null;
  /** Whether the engine is a cluster (read once: VPC networks are named and made differently there). */
  #clustered: boolean | null = null;
  /** The hosts' capacities as read lately (lxd-hosts.ts): reconciliation asks for the hosts every round. */
  readonly #capacities: CapacityCache = new Map();

  constructor(config: Config, client: LxdClient = lxdClientFrom(config)) {
    this.#config = config;
    this.#client = client;
    this.#onEngine = engineTurn(client);
  }

  get client(): LxdClient {
    return this.#client;
  }

  /** The console of the instance that runs for the server now (its rescue system's in rescue mode). */
  async openConsole(serverUuid: string, size: { cols: number; rows: number }): Promise<ConsoleOpening> {
    const machine = await openLxdConsole(this.#client, serverUuid, size);
    return machine ? { console: machine } : { unavailable: 'the machine is not running' };
  }

  // --- In the API's transaction: bounds and estimates (the engine's report settles the truth). ---

  transitionMs(): number {
    return this.#config.computeActionTimeoutSeconds * 1000;
  }

  /** An estimate until the engine reports the image's real size. */
  imageEstimate(machine: MachineFacts): { sizeGb: number; durationMs: number } {
    return { sizeGb: Math.max(1, Math.ceil(machine.image.min_disk_gb * 0.4)), durationMs: this.transitionMs() };
  }

  trafficCounter(machine: MachineFacts): TrafficCounter | null {
    return this.#traffic.get(machine.uuid) ?? null;
  }

  // --- After the commit: the job runner's calls. ---

  close(): void {
    this.#informer?.close();
    this.#client.close();
  }

  hosts(): Promise<HostReport[]> {
    return lxdHosts(this.#client, this.#config.lxdStoragePool, this.#capacities);
  }

  evacuateHost(name: string): Promise<void> {
    return setHostState(this.#client, name, 'evacuate');
  }

  restoreHost(name: string): Promise<void> {
    return setHostState(this.#client, name, 'restore');
  }

  async observe(
    specs: ReadonlyMap<string, MachineSpec>,
    now: number,
    only: ReadonlySet<string>,
  ): Promise<Map<string, EngineObservation>> {
    // Nothing changed: one small call still tells whether the engine answers (unknown power otherwise).
    if (only.size === 0) {
      await this.#client.get('/1.0');
      return new Map();
    }
    // The VPC networks the drift compares are named differently on a cluster.
    await this.#isClustered();
    const instances: ListedInstance[] = [];
    // A few dozen servers a call: each is named twice (its instance, its rescue system) in the filter.
    for (const batch of batches([...only], 40)) {
      const names = batch.flatMap((uuid) => [instanceName(uuid), rescueInstanceName(uuid)]);
      const filter = encodeURIComponent(names.map((name) => `name eq ${name}`).join(' or '));
      instances.push(...(await this.#client.get<ListedInstance[]>(`/1.0/instances?recursion=2&filter=${filter}`)));
    }
    return this.#observed(instances, specs, now);
  }

  /**
   * Every instance in one listing (LXD lists no page of them), held by the reading until the
   * round drops it: each page is answered from it, each server's instance and rescue system together.
   */
  async readAll(now: number): Promise<EngineReading> {
    await this.#isClustered();
    const listed = await this.#client.get<ListedInstance[]>('/1.0/instances?recursion=2');
    const ofServer = new Map<string, ListedInstance[]>();
    for (const instance of listed) {
      const uuid = serverOfInstance(instance.name) ?? serverOfRescueInstance(instance.name);
      if (uuid) ofServer.set(uuid, [...(ofServer.get(uuid) ?? []), instance]);
    }
    const servers = [...ofServer]
      .filter(([, instances]) => instances.some((instance) => serverOfInstance(instance.name)))
      .map(([uuid]) => uuid);
    return {
      servers: (size) => batches(servers, size),
      observe: (specs, only) =>
        this.#observed(
          [...only].flatMap((uuid) => ofServer.get(uuid) ?? []),
          specs,
          now,
        ),
    };
  }

  /** What the event stream told changed since the last call (lxd-informer.ts); null: read everything. */
  changes(): ReadonlySet<string> | null {
    this.#informer ??= new LxdInformer(this.#client, { resyncMs: this.#config.computeResyncSeconds * 1000 });
    return this.#informer.take();
  }

  /** Every running machine's counters and use, in one call (the carrier: the rescue system in rescue mode). */
  async readUsage(now: number): Promise<Map<string, Pick<EngineObservation, 'traffic' | 'usage'>>> {
    const running = await this.#client.get<ListedInstance[]>(
      `/1.0/instances?recursion=2&filter=${encodeURIComponent('status eq Running')}`,
    );
    const read = new Map<string, Pick<EngineObservation, 'traffic' | 'usage'>>();
    for (const instance of running) {
      const rescue = serverOfRescueInstance(instance.name);
      const uuid = rescue ?? serverOfInstance(instance.name);
      if (!uuid || (!rescue && read.has(uuid))) continue;
      const traffic = trafficOf(instance.name, instance.state, now, this.#config.trafficMetered);
      if (traffic) this.#traffic.set(uuid, traffic);
      read.set(uuid, { traffic, usage: usageOf(instance.state) });
    }
    return read;
  }

  /** The servers' observations from the instances listed (a server's and its rescue system's). */
  #observed(
    instances: ListedInstance[],
    specs: ReadonlyMap<string, MachineSpec>,
    now: number,
  ): Map<string, EngineObservation> {
    const seen = new Map<string, EngineObservation>();
    const rescues = new Map<string, ListedInstance>();
    for (const instance of instances) {
      const uuid = serverOfRescueInstance(instance.name);
      if (uuid) rescues.set(uuid, instance);
    }
    for (const server of instances) {
      const uuid = serverOfInstance(server.name);
      if (!uuid) continue;
      // On a member that does not answer, the cluster lists the instance with no configuration
      // (status Error): only where it is is known, which tells the machine lost with its host.
      if (!server.config) {
        seen.set(uuid, { power: 'stopped', traffic: null, usage: null, drift: [], ...hostOf(server) });
        continue;
      }
      // In rescue mode the rescue system is what runs (and moves traffic) for the server.
      const carrier = rescues.get(uuid) ?? server;
      const traffic = trafficOf(carrier.name, carrier.state, now, this.#config.trafficMetered);
      if (traffic) this.#traffic.set(uuid, traffic);
      const spec = specs.get(uuid);
      seen.set(uuid, {
        instance: server.name,
        power: carrier.status === 'Running' ? 'running' : 'stopped',
        traffic,
        usage: usageOf(carrier.state),
        drift: spec ? this.#driftOf(server, spec) : [],
        diskGeneration: generationOf(server),
        ...(server.config[powerKey] !== undefined ? { powerGeneration: Number(server.config[powerKey]) } : {}),
        ...hostOf(server),
      });
    }
    return seen;
  }

  async converge(
    serverUuid: string,
    spec: MachineSpec | null,
    now: number,
    egress: () => Promise<EgressPolicy>,
  ): Promise<ConvergeReport> {
    const name = instanceName(serverUuid);
    await this.#isClustered();
    if (!spec) {
      await this.#delete(rescueInstanceName(serverUuid));
      await this.#delete(name);
      await this.#forgetBackupsOf(serverUuid);
      return {};
    }
    // The counters as they are before a stop, restart or new disk restarts them.
    const traffic = await this.#readTraffic(serverUuid, now);
    let instance = await this.#instance(name);
    // A disk the engine made and no longer has is lost: told, never made again blank in its place.
    if (!instance && spec.disk.made) throw new MachineLost(serverUuid);
    if (!instance || generationOf(instance) !== spec.disk.generation) {
      // A rescue system holds the server's address: it goes before the instance is re-created.
      await this.#delete(rescueInstanceName(serverUuid));
      await this.#deleteOld(instance, spec);
      await this.#create(spec);
      instance = await this.#client.get<InstanceBody>(`/1.0/instances/${name}`);
    }
    // A disk made but left before its first-boot files were written (a crash) gets them now, once.
    const firstBoot = instance.config[firstBootKey];
    if (firstBoot !== undefined && firstBoot !== String(spec.disk.generation)) {
      await this.#firstBoot(name, spec).catch(async (error: unknown) => {
        // A create the engine did not finish (its daemon killed mid-way) can leave an instance
        // with no root filesystem. Never booted (first boot still pending), it holds no data:
        // it is made again rather than adopted.
        if (firstBoot !== 'pending' || !/rootfs: no such file/i.test((error as Error).message)) throw error;
        await this.#delete(name);
        await this.#create(spec);
        await this.#firstBoot(name, spec);
      });
      await this.#setConfig(name, { [firstBootKey]: String(spec.disk.generation) });
    }
    // The network policy first: a machine made or re-addressed is filtered before it runs.
    await this.convergeEgress(await egress());
    await this.#applyLimits(name, spec);
    await this.#applyNetwork(name, spec);
    const { power, forced } = await this.#applyPower(spec);
    return {
      power,
      traffic,
      diskGeneration: spec.disk.generation,
      powerGeneration: spec.powerGeneration,
      ...(forced ? { forced } : {}),
      ...hostOf(instance),
    };
  }

  produce(artifact: Artifact): Promise<ArtifactReport> {
    const handler = this.#artifactHandlers[artifact.kind] as (artifact: Artifact) => Promise<ArtifactReport>;
    return handler(artifact);
  }

  readonly #artifactHandlers: ArtifactHandlers<Promise<ArtifactReport>> = {
    takeSnapshot: async (a) => ({ sizeGb: await this.#keepAsImage(a.server, a.snapshot, 'snapshot') }),
    takeBackup: async (a) => ({ sizeGb: await this.#keepAsImage(a.server, a.snapshot, 'backup') }),
    forgetImage: async (a) => {
      await this.#deleteImageAlias(snapshotAlias(a.snapshot));
      return {};
    },
    forgetVpcNetwork: async (a) => {
      await this.#isClustered();
      await this.#client.call('DELETE', `/1.0/networks/${this.#vpcNetwork(a.vpc)}`).catch(ignoreMissing);
      return {};
    },
  };

  /** What the guest recorded of its first-boot script (images.ts, scriptRunner); null until it has. */
  async scriptReport(serverUuid: string): Promise<ScriptReport | null> {
    const name = instanceName(serverUuid);
    const status = await this.#client.pullFile(name, '/etc/nubis/script-status');
    if (status === null) return null;
    const output = (await this.#client.pullFile(name, '/var/log/nubis-script.log')) ?? Buffer.alloc(0);
    // Only the end is shown: a long output is read from its last 64 KiB.
    return parseScriptStatus(status.toString('utf8'), output.subarray(-65536).toString('utf8'));
  }

  /** Each region's bridge ACLs hold every server's blocked ports (lxd-acls.ts). */
  async convergeEgress(policy: EgressPolicy): Promise<void> {
    await applyBridgeAcls(this.#client, await bridgeAclsOf(policy.regions, policy.servers()));
  }

  async #instance(name: string): Promise<InstanceBody | null> {
    try {
      return await this.#client.get<InstanceBody>(`/1.0/instances/${name}`);
    } catch (error) {
      if (error instanceof LxdError && error.status === 404) return null;
      throw error;
    }
  }

  async #setConfig(name: string, config: Record<string, string>): Promise<void> {
    await this.#client.run('PATCH', `/1.0/instances/${name}`, { body: { config } });
  }

  /**
   * Puts the disk's cloud-init instance id back where the engine made a new one (cloudInitIdKey). A
   * change of that key alone is not one the engine makes a new id for. An instance without Nubis's
   * copy (a rescue system) is left as it is.
   */
  async #keepCloudInitId(name: string): Promise<void> {
    const { config } = await this.#client.get<InstanceBody>(`/1.0/instances/${name}`);
    const kept = config[cloudInitIdKey];
    if (kept !== undefined && config[engineCloudInitIdKey] !== kept)
      await this.#setConfig(name, { [engineCloudInitIdKey]: kept });
  }

  /** The counters of the instance carrying the server (its rescue system in rescue mode), or null. */
  async #readTraffic(serverUuid: string, now: number): Promise<TrafficCounter | null> {
    for (const name of [rescueInstanceName(serverUuid), instanceName(serverUuid)]) {
      const state = await this.#client.get<InstanceState>(`/1.0/instances/${name}/state`).catch(() => null);
      if (!state) continue;
      const traffic = trafficOf(name, state, now, this.#config.trafficMetered);
      if (traffic) this.#traffic.set(serverUuid, traffic);
      return traffic;
    }
    return null;
  }

  /** What differs from the spec in the limits and NICs Nubis sets on the server's instance, in words. */
  #driftOf(instance: InstanceBody, spec: MachineSpec): string[] {
    const drift: string[] = [];
    const limits = limitsConfig(spec);
    for (const [key, wanted] of Object.entries(limits))
      if (instance.config[key] !== wanted) drift.push(`${key} ${instance.config[key] ?? 'unset'} → ${wanted}`);
    // In rescue mode the public NIC is lent to the rescue system: the server's NICs are not compared then.
    if (spec.rescue || instance.config[lentNicKey]) return drift;
    // A NIC's MAC is the engine's to keep.
    const nics = (devices: Record<string, Record<string, string>>) =>
      Object.fromEntries(
        Object.entries(devices)
          .filter(([, device]) => device.type === 'nic')
          .map(([key, { hwaddr: _mac, ...device }]) => [key, device]),
      );
    const wanted = nics(this.#nicDevices(spec));
    const found = nics(instance.devices);
    // Where the host cannot police egress (#applyNetwork), a NIC limited on ingress alone is as wanted.
    const [want, have] = [wanted.eth0, found.eth0];
    if (
      want?.['limits.egress'] &&
      have &&
      !have['limits.egress'] &&
      have['limits.ingress'] === want['limits.ingress']
    ) {
      const { 'limits.egress': _egress, ...eth0 } = want;
      wanted.eth0 = eth0;
    }
    for (const key of new Set([...Object.keys(wanted), ...Object.keys(found)]))
      if (canonicalDevices({ [key]: wanted[key] ?? {} }) !== canonicalDevices({ [key]: found[key] ?? {} }))
        drift.push(`NIC ${key} ${found[key] ? 'changed' : 'missing'}${wanted[key] ? '' : ' (not Nubis’s)'}`);
    return drift;
  }

  async #storageDriver(): Promise<string> {
    this.#poolDriver ??= (
      await this.#client.get<{ driver: string }>(`/1.0/storage-pools/${this.#config.lxdStoragePool}`)
    ).driver;
    return this.#poolDriver;
  }

  /** The root disk: a directory pool has no quotas; every other driver sizes it to the plan. */
  async #rootDisk(spec: MachineSpec): Promise<Record<string, string>> {
    const root: Record<string, string> = {
      type: 'disk',
      path: '/',
      pool: this.#config.lxdStoragePool,
      ...rootDiskLimits(spec.limits),
    };
    if ((await this.#storageDriver()) !== 'dir') root.size = `${spec.limits.diskGb}GiB`;
    return root;
  }

  /** The public NIC and one NIC on each of the server's VPC networks. */
  #nicDevices(spec: MachineSpec): Record<string, Record<string, string>> {
    const devices: Record<string, Record<string, string>> = { eth0: this.#publicNic(spec) };
    spec.vpcs.forEach((vpc, index) => {
      devices[`eth${index + 1}`] = {
        type: 'nic',
        nictype: 'bridged',
        parent: this.#vpcNetwork(vpc.uuid),
        name: `eth${index + 1}`,
        ...vpcNicSecurity(vpc.address),
      };
    });
    return devices;
  }

  async #devices(spec: MachineSpec): Promise<Record<string, Record<string, string>>> {
    return { root: await this.#rootDisk(spec), ...this.#nicDevices(spec) };
  }

  /**
   * The public NIC: on the bridge of the pool its IPv4 comes from, which pins that address (DHCP);
   * the host routes the server's IPv6 /64 and its floating IPs to it (lxd-networks.ts); its rate is
   * limited while the server is throttled for bandwidth overage.
   */
  #publicNic(spec: MachineSpec): Record<string, string> {
    const bridge = bridgeOf(spec.region, spec.ipv4);
    return {
      type: 'nic',
      nictype: 'bridged',
      parent: bridge?.name ?? regionNetwork(spec.region),
      name: 'eth0',
      ...(spec.ipv4 ? { 'ipv4.address': spec.ipv4 } : {}),
      ...nicRoutes(spec),
      ...nicLimits(spec),
      ...publicNicSecurity(bridge, spec.ipv4),
    };
  }

  async #isClustered(): Promise<boolean> {
    this.#clustered ??= (await clusterMemberNames(this.#client)) !== null;
    return this.#clustered;
  }

  /** A VPC's engine network: on a cluster a shorter name, leaving room for its tunnel's (cluster-networks.ts). */
  #vpcNetwork(vpcUuid: string): string {
    return this.#clustered ? clusterVpcNetwork(vpcUuid) : vpcNetwork(vpcUuid);
  }

  async #ensureVpcNetworks(spec: MachineSpec): Promise<void> {
    const members = (await this.#isClustered()) ? await clusterMemberNames(this.#client) : null;
    if (members) {
      for (const vpc of spec.vpcs) await ensureClusterVpcNetwork(this.#client, members, vpc);
      return;
    }
    for (const vpc of spec.vpcs) {
      const network = vpcNetwork(vpc.uuid);
      if (await this.#client.exists(`/1.0/networks/${network}`)) continue;
      await this.#client
        .call('POST', '/1.0/networks', {
          body: {
            name: network,
            type: 'bridge',
            description: `Nubis VPC ${vpc.uuid} (${vpc.cidr})`,
            // No host address: members reach each other on it, and nothing else reaches them.
            config: { 'ipv4.address': 'none', 'ipv6.address': 'none', 'ipv4.nat': 'false' },
          },
        })
        .catch((error: unknown) => {
          if (!(error instanceof LxdError && /already exists/i.test(error.message))) throw error;
        });
    }
  }

  /** Makes the server's instance (stopped) for the spec's disk generation; its first-boot files are still to come. */
  async #create(spec: MachineSpec): Promise<void> {
    const name = instanceName(spec.uuid);
    await this.#ensureVpcNetworks(spec);
    const source = spec.disk.source;
    const alias = source.kind === 'snapshot' ? snapshotAlias(source.snapshot) : imageAlias(source.image);
    // Made before the call: #making lets one make run at a time (lxd-isolation.ts, oneAtATime).
    const devices = await this.#devices(spec);
    const target = await this.#target(spec);
    const cloudInitId = randomUUID();
    await this.#making(() =>
      this.#client.run('POST', `/1.0/instances${target}`, {
        body: {
          name,
          type: instanceType(spec.region, spec.plan),
          description: `Nubis server ${spec.hostname}`,
          source: { type: 'image', alias },
          profiles: [profileName],
          config: {
            ...limitsConfig(spec),
            ...imageConfig(spec.image),
            'cloud-init.user-data': userData(spec),
            [cloudNetworkKey]: cloudInitNetworkConfig(spec),
            'user.nubis.server': spec.uuid,
            // On a cluster an evacuation moves the machine (stop, copy, start on another member):
            // LXD's default (auto) only stopped Nubis's machines in place here.
            ...(this.#clustered ? { 'cluster.evacuate': 'migrate' } : {}),
            [diskKey]: String(spec.disk.generation),
            [firstBootKey]: 'pending',
            // The first-boot files hold this script (and are pushed again until they are): its
            // digest said now spares the network step a second push and a config change.
            [networkKey]: networkDigest(networkScript(spec)),
            [engineCloudInitIdKey]: cloudInitId,
            [cloudInitIdKey]: cloudInitId,
          },
          devices,
        },
      }),
    );
  }

  /**
   * Files the Nubis images read at boot: hostname, root password (consumed), key, script URL,
   * addresses. The folders first, then every file at once: each is a round trip to the engine,
   * which serves them all from one file server in the instance.
   */
  async #firstBoot(name: string, spec: MachineSpec): Promise<void> {
    // An image that is not Nubis's (one configured by cloud-init alone) has neither folder.
    await Promise.all([
      this.#client.ensureDirectory(name, '/etc/nubis'),
      spec.sshPublicKey ? this.#client.ensureDirectory(name, '/root/.ssh', '0700') : undefined,
    ]);
    const files: [path: string, content: string, mode?: string][] = [
      ['/etc/hostname', `${spec.hostname}\n`],
      ['/etc/nubis/root-password', spec.rootPassword(), '0600'],
      ['/etc/nubis/network', networkScript(spec), '0755'],
    ];
    if (spec.sshPublicKey) files.push(['/root/.ssh/authorized_keys', `${spec.sshPublicKey.trim()}\n`, '0600']);
    if (spec.scriptUrl)
      files.push(['/etc/nubis/script_url', `${spec.scriptUrl}\n`], ['/etc/nubis/run-script', scriptRunner, '0755']);
    await Promise.all(files.map(([path, content, mode]) => this.#client.pushFile(name, path, content, mode)));
  }

  /**
   * Power and rescue mode, once per power generation: the instance carrying the server (its own,
   * or its rescue system) is brought to the spec's power, and one that was running already is
   * restarted (a reboot: a clean shutdown, then a start). A generation already applied leaves the
   * machine's power as the engine has it (stopped outside Nubis, it stays so: reconciliation
   * reports it). Reports the power, and whether a stop had to be forced.
   */
  async #applyPower(spec: MachineSpec): Promise<{ power: Power; forced: boolean }> {
    const name = instanceName(spec.uuid);
    const applied = (await this.#client.get<InstanceBody>(`/1.0/instances/${name}`)).config[powerKey];
    if (applied === String(spec.powerGeneration)) {
      const carrier = (await this.#client.exists(`/1.0/instances/${rescueInstanceName(spec.uuid)}`))
        ? rescueInstanceName(spec.uuid)
        : name;
      const state = await this.#client.get<InstanceState>(`/1.0/instances/${carrier}/state`);
      return { power: state.status === 'Running' ? 'running' : 'stopped', forced: false };
    }
    const carrier = await this.#carrier(spec);
    // A reboot is a clean shutdown and a start: the guest's processes get SIGTERM first.
    const forced = spec.power === 'running' ? await this.#shutDown(carrier) : false;
    const { power, forced: stopForced } = await this.#power(carrier, spec.power);
    await this.#setConfig(name, { [powerKey]: String(spec.powerGeneration) });
    return { power, forced: forced || stopForced };
  }

  /**
   * Shuts a running instance down as the power-off button does: the guest is asked to stop
   * cleanly and given COMPUTE_GRACEFUL_STOP_SECONDS; one still running then is stopped by force.
   * Answers whether it had to be forced.
   */
  async #shutDown(name: string): Promise<boolean> {
    const running = async () =>
      (await this.#client.get<InstanceState>(`/1.0/instances/${name}/state`)).status === 'Running';
    if (!(await running())) return false;
    const seconds = this.#config.computeGracefulStopSeconds;
    // The engine answers an error when the guest did not stop in time: the state below tells.
    await this.#client
      .run(
        'PUT',
        `/1.0/instances/${name}/state`,
        { body: { action: 'stop', force: false, timeout: seconds } },
        seconds + 30,
      )
      .catch(() => {});
    if (!(await running())) return false;
    await this.#client.run('PUT', `/1.0/instances/${name}/state`, {
      body: { action: 'stop', force: true, timeout: 30 },
    });
    return true;
  }

  /**
   * The instance that carries the server, after entering or leaving rescue mode as the server asks:
   * in rescue mode the server's instance is stopped and its rescue system holds its NIC and address.
   */
  async #carrier(spec: MachineSpec): Promise<string> {
    const name = instanceName(spec.uuid);
    const rescue = rescueInstanceName(spec.uuid);
    if (!spec.rescue) {
      await this.#delete(rescue);
      await takeNicBack(this.#client, spec.uuid);
      return name;
    }
    await this.#power(name, 'stopped');
    await shiftToItsMap(this.#client, spec.uuid);
    const nic = await lendNic(this.#client, spec.uuid, this.#publicNic(spec));
    if (!(await this.#client.exists(`/1.0/instances/${rescue}`)))
      await this.#making(() =>
        createRescue(this.#client, {
          pool: this.#config.lxdStoragePool,
          project: this.#config.lxdProject,
          spec,
          nic,
          userData: userData({ ...spec, hostname: rescueHostname, scriptUrl: null }),
        }),
      );
    const state = await this.#client.get<InstanceState>(`/1.0/instances/${rescue}/state`);
    // Written before each boot (it reads them then), so a half-made rescue system gets them on a retry.
    if (state.status !== 'Running') await pushRescueFiles(this.#client, spec);
    return rescue;
  }

  /**
   * Brings the instance to `want` (a stop is a clean shutdown, forced only after the grace time)
   * and reports the engine's state; a started one has its address.
   */
  async #power(name: string, want: Power): Promise<{ power: Power; forced: boolean }> {
    const state = await this.#client.get<InstanceState>(`/1.0/instances/${name}/state`);
    const running = state.status === 'Running';
    if (want === 'running' && !running) {
      await this.#keepCloudInitId(name);
      await this.#client.run('PUT', `/1.0/instances/${name}/state`, { body: { action: 'start', timeout: 30 } });
    }
    const forced = want === 'stopped' && running ? await this.#shutDown(name) : false;
    if (want === 'running') await this.#awaitAddress(name);
    const after = await this.#client.get<InstanceState>(`/1.0/instances/${name}/state`);
    return { power: after.status === 'Running' ? 'running' : 'stopped', forced };
  }

  /** Waits (up to 30 s) until the machine holds an IPv4 address on eth0: running means reachable. */
  async #awaitAddress(name: string): Promise<void> {
    for (let attempt = 0; attempt < 120; attempt++) {
      const state = await this.#client.get<InstanceState>(`/1.0/instances/${name}/state`);
      if (state.status !== 'Running') return;
      if (state.network?.eth0?.addresses.some((a) => a.family === 'inet')) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /**
   * The instance of an older disk goes before the new one is made. On a host the spec avoids (a
   * recovery from a lost member) the engine cannot reach it: LXD drops it only when the operator
   * removes the lost member (`lxc cluster remove --force`); until then the job fails and is retried.
   */
  async #deleteOld(instance: InstanceBody | null, spec: MachineSpec): Promise<void> {
    if (!instance) return;
    try {
      await this.#delete(instance.name);
    } catch (error) {
      const location = instance.location;
      if (!location || !spec.avoidHosts?.includes(location)) throw error;
      throw new Error(
        `the lost machine is still recorded on member ${location}, which does not answer (${(error as Error).message}); ` +
          `remove that member from the cluster (lxc cluster remove --force ${location}) and the recovery goes on`,
      );
    }
  }

  /**
   * Where a new instance is made: the region's cluster group (LXD's scheduler picks the member);
   * with hosts to avoid (a recovery), the online member of the group, other than those, that runs
   * the fewest instances.
   */
  async #target(spec: MachineSpec): Promise<string> {
    const group = spec.region.engine?.cluster_group;
    const avoid = spec.avoidHosts ?? [];
    if (avoid.length === 0) return group ? `?target=${encodeURIComponent(`@${group}`)}` : '';
    const members = (await this.hosts()).filter(
      (host) => host.status === 'online' && !avoid.includes(host.name) && (!group || host.groups.includes(group)),
    );
    // A single engine (no cluster): there is no other host to choose.
    if (members.length === 0 || (members.length === 1 && members[0]!.groups.length === 0))
      return group ? `?target=${encodeURIComponent(`@${group}`)}` : '';
    const instances = await this.#client.get<{ location?: string }[]>('/1.0/instances?recursion=1');
    const load = (name: string) => instances.filter((instance) => instance.location === name).length;
    members.sort((a, b) => load(a.name) - load(b.name) || a.name.localeCompare(b.name));
    return `?target=${encodeURIComponent(members[0]!.name)}`;
  }

  async #delete(name: string): Promise<void> {
    if (!(await this.#client.exists(`/1.0/instances/${name}`))) return;
    const state = await this.#client.get<InstanceState>(`/1.0/instances/${name}/state`);
    if (state.status === 'Running')
      await this.#client.run('PUT', `/1.0/instances/${name}/state`, {
        body: { action: 'stop', force: true, timeout: 30 },
      });
    // Deleting the instance deletes its engine snapshots with it; Nubis snapshots are images.
    await this.#client
      .run('DELETE', `/1.0/instances/${name}`)
      .catch(ignoreMissing)
      .catch((error: unknown) => {
        if (!(error instanceof LxdError)) throw error;
        // LXD 5.0, its daemon killed during a create, can keep an instance whose storage volume
        // it never made (on btrfs an empty folder, not a subvolume) and then refuse to delete it.
        // Nubis reaches the engine only through its API, which has no way around that: the
        // operator is told (engine_error) what to remove by hand on the engine's host.
        throw new LxdError(
          error.status,
          `the engine refused to delete instance ${name} (${error.message}); if its create was cut short ` +
            "(the engine's daemon stopped), its storage volume may never have been made: remove the " +
            `instance on the engine's host (see docs/lxd.md, "An instance the engine cannot delete")`,
        );
      });
  }

  /** The plan's CPU and memory limits and disk size, put back when they differ (a resize, or drift). */
  async #applyLimits(name: string, spec: MachineSpec): Promise<void> {
    const instance = await this.#client.get<InstanceBody>(`/1.0/instances/${name}`);
    const config = limitsConfig(spec);
    const changed = Object.fromEntries(Object.entries(config).filter(([key, value]) => instance.config[key] !== value));
    const root = await this.#rootDisk(spec);
    // The size (where the pool has quotas) and the I/O ceiling: what the plan sets of the root disk.
    const sized = Object.fromEntries(
      ['size', 'limits.read', 'limits.write'].filter((key) => root[key] !== undefined).map((key) => [key, root[key]!]),
    );
    const diskChanged = Object.entries(sized).some(([key, value]) => instance.devices.root?.[key] !== value);
    if (Object.keys(changed).length === 0 && !diskChanged) return;
    await this.#client.run('PATCH', `/1.0/instances/${name}`, {
      body: {
        config: changed,
        ...(diskChanged ? { devices: { root: { ...(instance.devices.root ?? root), ...sized } } } : {}),
      },
    });
  }

  /**
   * Copies the server's disk into an engine image (through a short-lived engine snapshot); its
   * size in GB. The image names its server and kind, so a server's backups can go with it.
   */
  async #keepAsImage(serverUuid: string, snapshotUuid: string, what: 'snapshot' | 'backup'): Promise<number> {
    const name = instanceName(serverUuid);
    const alias = snapshotAlias(snapshotUuid);
    const engineSnapshot = `n${snapshotUuid.replace(/-/g, '').slice(0, 12)}`;
    const existing = await this.#imageByAlias(alias);
    if (existing) {
      // Made by an attempt that stopped (the engine or Nubis killed) before removing its source.
      await this.#client.run('DELETE', `/1.0/instances/${name}/snapshots/${engineSnapshot}`).catch(ignoreMissing);
      return Math.max(1, Math.ceil(existing.size / gb));
    }
    if (!(await this.#client.exists(`/1.0/instances/${name}/snapshots/${engineSnapshot}`)))
      await this.#client.run('POST', `/1.0/instances/${name}/snapshots`, { body: { name: engineSnapshot } });
    try {
      await this.#client.run(
        'POST',
        '/1.0/images',
        {
          body: {
            source: { type: 'snapshot', name: `${name}/${engineSnapshot}` },
            aliases: [{ name: alias, description: `Nubis snapshot ${snapshotUuid}` }],
            properties: {
              description: `Nubis ${what} ${snapshotUuid}`,
              [imageServerProperty]: serverUuid,
              [imageKindProperty]: what,
            },
          },
        },
        900,
      );
    } finally {
      await this.#client.run('DELETE', `/1.0/instances/${name}/snapshots/${engineSnapshot}`).catch(ignoreMissing);
    }
    const image = await this.#imageByAlias(alias);
    return Math.max(1, Math.ceil((image?.size ?? gb) / gb));
  }

  async #imageByAlias(alias: string): Promise<{ fingerprint: string; size: number } | null> {
    try {
      const target = await this.#client.get<{ target: string }>(`/1.0/images/aliases/${alias}`);
      return await this.#client.get<{ fingerprint: string; size: number }>(`/1.0/images/${target.target}`);
    } catch (error) {
      if (error instanceof LxdError && error.status === 404) return null;
      throw error;
    }
  }

  async #deleteImageAlias(alias: string): Promise<void> {
    const image = await this.#imageByAlias(alias);
    if (image) await this.#client.run('DELETE', `/1.0/images/${image.fingerprint}`).catch(ignoreMissing);
  }

  /** A removed server's backups go with it (its snapshots stay): their images too. */
  async #forgetBackupsOf(serverUuid: string): Promise<void> {
    const images =
      await this.#client.get<{ fingerprint: string; properties: Record<string, string> }[]>('/1.0/images?recursion=1');
    for (const image of images)
      if (image.properties?.[imageServerProperty] === serverUuid && image.properties[imageKindProperty] === 'backup')
        await this.#client.run('DELETE', `/1.0/images/${image.fingerprint}`).catch(ignoreMissing);
  }

  /**
   * NICs for the server's VPCs (hot-plugged), routes to eth0, and the addresses written and
   * applied in the guest; each only when it differs from the spec (the script: by its digest).
   */
  async #applyNetwork(name: string, spec: MachineSpec): Promise<void> {
    await this.#ensureVpcNetworks(spec);
    const instance = await this.#client.get<InstanceBody>(`/1.0/instances/${name}`);
    // An instance made before Nubis kept the id keeps the one it has now (in the config the NICs'
    // PUT below writes back too).
    const engineId = instance.config[engineCloudInitIdKey];
    if (instance.config[cloudInitIdKey] === undefined && engineId !== undefined) {
      instance.config[cloudInitIdKey] = engineId;
      await this.#setConfig(name, { [cloudInitIdKey]: engineId });
    }
    const wanted = this.#nicDevices(spec);
    const devices: Record<string, Record<string, string>> = {};
    // Devices that are not NICs stay; the public NIC keeps its MAC (the bridge's DHCP lease is
    // per MAC). While lent to a rescue system it is not here at all.
    for (const [key, device] of Object.entries(instance.devices)) if (device.type !== 'nic') devices[key] = device;
    const hwaddr = instance.devices.eth0?.hwaddr;
    if (instance.devices.eth0 || !instance.config[lentNicKey])
      devices.eth0 = { ...wanted.eth0!, ...(hwaddr ? { hwaddr } : {}) };
    for (const [key, device] of Object.entries(wanted)) if (key !== 'eth0') devices[key] = device;
    const put = (with_: Record<string, Record<string, string>>) =>
      this.#client.run('PUT', `/1.0/instances/${name}`, {
        body: {
          architecture: instance.architecture,
          config: instance.config,
          devices: with_,
          profiles: instance.profiles,
          ephemeral: instance.ephemeral ?? false,
          stateful: instance.stateful ?? false,
          description: instance.description ?? '',
        },
      });
    if (canonicalDevices(devices) !== canonicalDevices(instance.devices))
      await put(devices).catch(async (error: unknown) => {
        // A host kernel without tc policing (act_police) cannot limit what the machine sends
        // (limits.egress); what it receives (limits.ingress, an htb qdisc) is still limited.
        if (!devices.eth0?.['limits.egress'] || !/TC action module|tc filter/i.test((error as Error).message))
          throw error;
        const { 'limits.egress': _egress, ...eth0 } = devices.eth0;
        const fallback = { ...devices, eth0 };
        if (canonicalDevices(fallback) !== canonicalDevices(instance.devices)) await put(fallback);
      });
    // cloud-init applies its network config once per instance (at the disk's first boot): kept
    // current all the same, for what the customer re-runs (`cloud-init clean`) and for a rebuild.
    const cloudNetwork = cloudInitNetworkConfig(spec);
    if (instance.config[cloudNetworkKey] !== cloudNetwork)
      await this.#setConfig(name, { [cloudNetworkKey]: cloudNetwork });
    // At every converge, not only after a change here: one cut short before this put it back.
    await this.#keepCloudInitId(name);
    const script = networkScript(spec);
    const digest = networkDigest(script);
    if (instance.config[networkKey] === digest) return;
    await this.#client.pushFile(name, '/etc/nubis/network', script, '0755');
    const state = await this.#client.get<InstanceState>(`/1.0/instances/${name}/state`);
    if (state.status === 'Running') {
      const result = await this.#client.exec(name, ['/bin/sh', '/etc/nubis/network']);
      if (result.code !== 0)
        throw new Error(`applying the addresses in the guest failed: ${result.stderr.slice(0, 300)}`);
    }
    await this.#setConfig(name, { [networkKey]: digest });
  }
}

/** The public NIC's rate limits while the server is throttled for bandwidth overage. */
export function nicLimits(spec: Pick<MachineSpec, 'throttle'>): {
  'limits.egress'?: string;
  'limits.ingress'?: string;
} {
  return spec.throttle ? { 'limits.egress': spec.throttle, 'limits.ingress': spec.throttle } : {};
}

/** The instance config of the spec's limits (CPU, memory, processes, disk I/O) and its own id map. */
function limitsConfig(spec: MachineSpec): Record<string, string> {
  return {
    'limits.cpu': String(spec.limits.vcpus),
    'limits.memory': `${spec.limits.memoryMb}MiB`,
    ...isolationConfig(spec.limits),
  };
}

/** The member an instance is on, as a report carries it (none on an engine that is not clustered). */
function hostOf(instance: Pick<InstanceBody, 'location'>): { host?: string } {
  const location = instance.location;
  return location && location !== 'none' ? { host: location } : {};
}

/** The disk generation the instance was made for (0: made before generations were kept). */
function generationOf(instance: InstanceBody): number {
  return Number(instance.config[diskKey] ?? 0);
}

/** A running instance's public NIC counters, counting from its current start (its process). */
function trafficOf(
  name: string,
  state: InstanceState | null,
  now: number,
  metered: TrafficMetered,
): TrafficCounter | null {
  const eth0 = state?.status === 'Running' ? state.network?.eth0 : undefined;
  if (!state || !eth0) return null;
  return {
    epoch: `${name}@${state.pid ?? 0}`,
    // The engine counts from the instance's side: bytes_sent is what the server sent.
    bytes: meteredBytes(eth0.counters.bytes_sent, eth0.counters.bytes_received, metered),
    at: now,
    since: null,
  };
}

/** Devices as text independent of key order (the engine answers with its keys sorted). */
export function canonicalDevices(devices: Record<string, Record<string, string>>): string {
  return JSON.stringify(
    Object.keys(devices)
      .sort()
      .map((key) => [key, Object.entries(devices[key]!).sort(([a], [b]) => a.localeCompare(b))]),
  );
}

function ignoreMissing(error: unknown): void {
  if (error instanceof LxdError && (error.status === 404 || /not found/i.test(error.message))) return;
  throw error;
}
