// The real compute driver on LXD or Incus (COMPUTE_DRIVER=lxd). In the API's transaction it only
// answers that an action is under way; the job runner then calls `perform`, which makes the
// engine's instance match the server (idempotently: a retried job finds half its work done).

import { type LxdUsageState, usageOf } from './instance-usage.ts';
import type { Config } from '../../config.ts';
import type { Region } from '../../catalog/catalog.types.ts';
import type { ServerEgress } from '../server-egress.ts';
import { parseScriptStatus, type ScriptReport } from '../../servers/script-outcome.ts';
import { applyBridgeAcls, bridgeAcls } from './lxd-acls.ts';
import type {
  ActionTicket,
  ComputeDriver,
  Engine,
  EngineObservation,
  EngineOutcome,
  Machine,
  MachineSpec,
  SnapshotTicket,
} from '../compute-driver.ts';
import { LxdClient, LxdError } from './lxd-client.ts';
import { scriptRunner } from './images.ts';
import { createRescue, lendNic, pushRescueFiles, rescueHostname, shiftOnce, takeNicBack } from './rescue.ts';
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
import { bridgeOf, ipv6FirstHost, nicRoutes } from './lxd-networks.ts';

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
}

interface InstanceState extends LxdUsageState {
  status: string;
  network: Record<
    string,
    { addresses: { family: string; address: string }[]; counters: { bytes_received: number; bytes_sent: number } }
  > | null;
}

const gb = 1024 ** 3;
/** Properties of a snapshot's or backup's engine image: the server it was taken from, and which it is. */
const imageServerProperty = 'nubis.server';
const imageKindProperty = 'nubis.kind';

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
 * The shell script a Nubis image runs at boot and on every network change: the server's IPv6 and
 * floating addresses on eth0 (each IPv6 /64 answered on its first host, ::1) with the IPv6 route
 * through its bridge, the VPC addresses on eth1... Addresses already in place stay, so a session
 * on one survives a change to another.
 */
export function networkScript(spec: MachineSpec): string {
  const v4 = spec.floating.filter((a) => !a.includes(':')).map((a) => `${a}/32`);
  // The server's own /64 comes as its block (2001:db8:1:2a::), shown by the API as its ::1.
  const v6 = [...(spec.ipv6 ? [spec.ipv6] : []), ...spec.floating.filter((a) => a.includes(':'))].map(
    (a) => `${ipv6FirstHost(a)}/64`,
  );
  const gateway = bridgeOf(spec.region, spec.ipv4)?.ipv6;
  const lines = [
    '#!/bin/sh',
    '# Written by Nubis: the IPv6, floating and private (VPC) addresses of this server.',
    '# hold FAMILY WANTED FOUND...: removes from eth0 what is found but not wanted, adds what is missing.',
    'hold() {',
    '  family=$1 wanted=" $2 "; shift 2',
    '  for a in "$@"; do case "$wanted" in *" $a "*) ;; *) ip -"$family" addr del "$a" dev eth0 ;; esac; done',
    '  for a in $wanted; do case " $* " in *" $a "*) ;; *) ip -"$family" addr add "$a" dev eth0 ;; esac; done',
    '}',
    // The DHCP address is the pool's prefix; the floating ones are the /32s.
    `hold 4 "${v4.join(' ')}" $(ip -4 -o addr show dev eth0 | awk '$4 ~ /\\/32$/ {print $4}')`,
    `hold 6 "${v6.join(' ')}" $(ip -6 -o addr show dev eth0 scope global | awk '{print $4}')`,
  ];
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

/** cloud-init user data for images that run cloud-init (the Nubis images also read the files pushed). */
export function userData(spec: MachineSpec): string {
  const lines = [
    '#cloud-config',
    `hostname: ${JSON.stringify(spec.hostname)}`,
    `fqdn: ${JSON.stringify(spec.hostname)}`,
    // The server's hostname as given (web-1.example.com), as `hostname` prints it.
    'prefer_fqdn_over_hostname: true',
    'preserve_hostname: false',
    'disable_root: false',
    'ssh_pwauth: true',
    'chpasswd:',
    '  expire: false',
    '  users:',
    `    - {name: root, password: ${JSON.stringify(spec.rootPassword)}, type: text}`,
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
  /** Traffic counters (bytes in + out) from the last observation, by server uuid. */
  readonly #traffic = new Map<string, number>();
  #poolDriver: string | null = null;

  constructor(config: Config, client: LxdClient = lxdClientFrom(config)) {
    this.#config = config;
    this.#client = client;
  }

  get client(): LxdClient {
    return this.#client;
  }

  // --- In the API's transaction: the intent only. ---

  #pending(): ActionTicket {
    return { durationMs: this.#config.computeActionTimeoutSeconds * 1000 };
  }
  async provision(): Promise<ActionTicket> {
    return this.#pending();
  }
  async start(): Promise<ActionTicket> {
    return this.#pending();
  }
  async stop(): Promise<ActionTicket> {
    return this.#pending();
  }
  async reboot(): Promise<ActionTicket> {
    return this.#pending();
  }
  async rescue(): Promise<ActionTicket> {
    return this.#pending();
  }
  async rebuild(): Promise<ActionTicket> {
    return this.#pending();
  }
  async resize(): Promise<ActionTicket> {
    return this.#pending();
  }
  /** An estimate until the engine reports the image's real size. */
  async snapshot(machine: Machine): Promise<SnapshotTicket> {
    return { ...this.#pending(), sizeGb: Math.max(1, Math.ceil(machine.image.min_disk_gb * 0.4)) };
  }
  async restore(): Promise<ActionTicket> {
    return this.#pending();
  }
  async remove(): Promise<void> {}

  /** From the NIC counters the last reconciliation read (bytes since the instance started). */
  async bandwidthUsageGb(machines: Machine[]): Promise<Map<string, number>> {
    const usage = new Map<string, number>();
    for (const machine of machines) {
      const bytes = this.#traffic.get(machine.uuid);
      if (bytes !== undefined) usage.set(machine.uuid, Math.round((bytes / gb) * 100) / 100);
    }
    return usage;
  }

  // --- After the commit: the job runner's calls. ---

  close(): void {
    this.#client.close();
  }

  async observe(): Promise<Map<string, EngineObservation>> {
    const instances =
      await this.#client.get<(InstanceBody & { state: InstanceState | null })[]>('/1.0/instances?recursion=2');
    const seen = new Map<string, EngineObservation>();
    const rescues = new Map<string, (typeof instances)[number]>();
    for (const instance of instances) {
      const uuid = serverOfRescueInstance(instance.name);
      if (uuid) rescues.set(uuid, instance);
    }
    for (const server of instances) {
      const uuid = serverOfInstance(server.name);
      if (!uuid) continue;
      // In rescue mode the rescue system is what runs (and moves traffic) for the server.
      const instance = rescues.get(uuid) ?? server;
      seen.set(uuid, { power: instance.status === 'Running' ? 'running' : 'stopped', usage: usageOf(instance.state) });
      const eth0 = instance.state?.network?.eth0;
      if (eth0) this.#traffic.set(uuid, eth0.counters.bytes_received + eth0.counters.bytes_sent);
    }
    return seen;
  }

  /** What the guest recorded of its first-boot script (images.ts, scriptRunner); null until it has. */
  async scriptReport(serverUuid: string): Promise<ScriptReport | null> {
    const name = instanceName(serverUuid);
    const status = await this.#client.pullFile(name, '/etc/nubis/script-status');
    if (status === null) return null;
    const output = (await this.#client.pullFile(name, '/var/log/nubis-script.log')) ?? Buffer.alloc(0);
    // Only the end is shown: a long output is read from its last 64 KiB.
    return parseScriptStatus(status.toString('utf8'), output.subarray(-65536).toString('utf8'));
  }

  async enforceBlockedPorts(regions: Region[], servers: ServerEgress[]): Promise<void> {
    await applyBridgeAcls(this.#client, bridgeAcls(regions, servers));
  }

  async perform(
    action: string,
    serverUuid: string,
    spec: MachineSpec | null,
    payload: Record<string, unknown>,
  ): Promise<EngineOutcome> {
    const name = instanceName(serverUuid);
    switch (action) {
      case 'remove':
        await this.#delete(rescueInstanceName(serverUuid));
        await this.#delete(name);
        await this.#forgetBackupsOf(serverUuid);
        return {};
      case 'forget-snapshot':
        // The snapshot in the payload; a job queued before it named one was keyed by the snapshot.
        await this.#deleteImageAlias(snapshotAlias(String(payload.snapshot ?? serverUuid)));
        return {};
      case 'snapshotting':
      case 'backup': {
        const snapshot = String(payload.snapshot ?? '');
        return { sizeGb: await this.#keepAsImage(name, snapshot, serverUuid, action) };
      }
      case 'forget-vpc':
        await this.#client.call('DELETE', `/1.0/networks/${vpcNetwork(serverUuid)}`).catch(ignoreMissing);
        return {};
    }
    if (!spec) return {};
    switch (action) {
      case 'provisioning':
        if (!(await this.#client.exists(`/1.0/instances/${name}`))) await this.#create(spec);
        return { power: await this.#settle(spec, spec.power) };
      case 'rebuilding':
      case 'reinstalling':
      case 'restoring':
        // A rescue system holds the server's address: it goes before the instance is re-created.
        await this.#delete(rescueInstanceName(serverUuid));
        await this.#delete(name);
        await this.#create(spec);
        return { power: await this.#settle(spec, 'running') };
      case 'booting':
        return { power: await this.#settle(spec, 'running') };
      case 'stopping':
        return { power: await this.#settle(spec, 'stopped') };
      case 'rebooting': {
        const carrier = await this.#carrier(spec);
        const state = await this.#client.get<InstanceState>(`/1.0/instances/${carrier}/state`);
        if (state.status === 'Running')
          await this.#client.run('PUT', `/1.0/instances/${carrier}/state`, {
            body: { action: 'restart', force: true, timeout: 30 },
          });
        return { power: await this.#power(carrier, 'running') };
      }
      case 'resizing':
        await this.#resize(name, spec);
        return { power: await this.#settle(spec, spec.power) };
      case 'network':
        await this.#applyNetwork(name, spec);
        return {};
      default:
        throw new Error(`the lxd driver has no action ${action}`);
    }
  }

  async #storageDriver(): Promise<string> {
    this.#poolDriver ??= (
      await this.#client.get<{ driver: string }>(`/1.0/storage-pools/${this.#config.lxdStoragePool}`)
    ).driver;
    return this.#poolDriver;
  }

  async #devices(spec: MachineSpec): Promise<Record<string, Record<string, string>>> {
    const root: Record<string, string> = { type: 'disk', path: '/', pool: this.#config.lxdStoragePool };
    // A directory pool has no quotas; every other driver sizes the root disk to the plan.
    if ((await this.#storageDriver()) !== 'dir') root.size = `${spec.plan.disk_gb}GiB`;
    const devices: Record<string, Record<string, string>> = {
      root,
      eth0: this.#publicNic(spec),
    };
    spec.vpcs.forEach((vpc, index) => {
      devices[`eth${index + 1}`] = {
        type: 'nic',
        nictype: 'bridged',
        parent: vpcNetwork(vpc.uuid),
        name: `eth${index + 1}`,
      };
    });
    return devices;
  }

  /**
   * The public NIC: on the bridge of the pool its IPv4 comes from, which pins that address (DHCP);
   * the host routes the server's IPv6 /64 and its floating IPs to it (lxd-networks.ts).
   */
  #publicNic(spec: MachineSpec): Record<string, string> {
    const bridge = bridgeOf(spec.region, spec.ipv4);
    return {
      type: 'nic',
      nictype: 'bridged',
      parent: bridge?.name ?? regionNetwork(spec.region),
      name: 'eth0',
      ...(spec.ipv4 ? { 'ipv4.address': spec.ipv4 } : {}),
      ...nicRoutes(bridge, spec),
      ...nicLimits(spec),
    };
  }

  async #ensureVpcNetworks(spec: MachineSpec): Promise<void> {
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

  async #create(spec: MachineSpec): Promise<void> {
    const name = instanceName(spec.uuid);
    await this.#ensureVpcNetworks(spec);
    const alias = spec.sourceSnapshot ? snapshotAlias(spec.sourceSnapshot) : imageAlias(spec.image);
    const group = spec.region.engine?.cluster_group;
    await this.#client.run('POST', `/1.0/instances${group ? `?target=${encodeURIComponent(`@${group}`)}` : ''}`, {
      body: {
        name,
        type: instanceType(spec.region, spec.plan),
        description: `Nubis server ${spec.hostname}`,
        source: { type: 'image', alias },
        profiles: [profileName],
        config: {
          'limits.cpu': String(spec.plan.vcpus),
          'limits.memory': `${spec.plan.ram_mb}MiB`,
          'cloud-init.user-data': userData(spec),
          'user.nubis.server': spec.uuid,
        },
        devices: await this.#devices(spec),
      },
    });
    await this.#firstBoot(name, spec);
  }

  /** Files the Nubis images read at boot: hostname, root password (consumed), key, script URL, addresses. */
  async #firstBoot(name: string, spec: MachineSpec): Promise<void> {
    await this.#client.pushFile(name, '/etc/hostname', `${spec.hostname}\n`);
    await this.#client.pushFile(name, '/etc/nubis/root-password', spec.rootPassword, '0600');
    if (spec.sshPublicKey)
      await this.#client.pushFile(name, '/root/.ssh/authorized_keys', `${spec.sshPublicKey.trim()}\n`, '0600');
    if (spec.scriptUrl) {
      await this.#client.pushFile(name, '/etc/nubis/script_url', `${spec.scriptUrl}\n`);
      await this.#client.pushFile(name, '/etc/nubis/run-script', scriptRunner, '0755');
    }
    await this.#client.pushFile(name, '/etc/nubis/network', networkScript(spec), '0755');
  }

  /** Brings the instance that carries the server (its own, or its rescue system) to `want`. */
  async #settle(spec: MachineSpec, want: 'running' | 'stopped'): Promise<'running' | 'stopped'> {
    return this.#power(await this.#carrier(spec), want);
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
    await shiftOnce(this.#client, spec.uuid);
    await this.#power(name, 'stopped');
    const nic = await lendNic(this.#client, spec.uuid, (await this.#devices(spec)).eth0!);
    if (!(await this.#client.exists(`/1.0/instances/${rescue}`)))
      await createRescue(this.#client, {
        pool: this.#config.lxdStoragePool,
        project: this.#config.lxdProject,
        spec,
        nic,
        userData: userData({ ...spec, hostname: rescueHostname, scriptUrl: null }),
      });
    const state = await this.#client.get<InstanceState>(`/1.0/instances/${rescue}/state`);
    // Written before each boot (it reads them then), so a half-made rescue system gets them on a retry.
    if (state.status !== 'Running') await pushRescueFiles(this.#client, spec);
    return rescue;
  }

  /** Brings the instance to `want` and reports the engine's state; a started one has its address. */
  async #power(name: string, want: 'running' | 'stopped'): Promise<'running' | 'stopped'> {
    const state = await this.#client.get<InstanceState>(`/1.0/instances/${name}/state`);
    const running = state.status === 'Running';
    if (want === 'running' && !running)
      await this.#client.run('PUT', `/1.0/instances/${name}/state`, { body: { action: 'start', timeout: 30 } });
    if (want === 'stopped' && running)
      await this.#client.run('PUT', `/1.0/instances/${name}/state`, {
        body: { action: 'stop', force: true, timeout: 30 },
      });
    if (want === 'running') await this.#awaitAddress(name);
    const after = await this.#client.get<InstanceState>(`/1.0/instances/${name}/state`);
    return after.status === 'Running' ? 'running' : 'stopped';
  }

  /** Waits (up to 30 s) until the machine holds an IPv4 address on eth0: running means reachable. */
  async #awaitAddress(name: string): Promise<void> {
    for (let attempt = 0; attempt < 60; attempt++) {
      const state = await this.#client.get<InstanceState>(`/1.0/instances/${name}/state`);
      if (state.status !== 'Running') return;
      if (state.network?.eth0?.addresses.some((a) => a.family === 'inet')) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  async #delete(name: string): Promise<void> {
    if (!(await this.#client.exists(`/1.0/instances/${name}`))) return;
    const state = await this.#client.get<InstanceState>(`/1.0/instances/${name}/state`);
    if (state.status === 'Running')
      await this.#client.run('PUT', `/1.0/instances/${name}/state`, {
        body: { action: 'stop', force: true, timeout: 30 },
      });
    // Deleting the instance deletes its engine snapshots with it; Nubis snapshots are images.
    await this.#client.run('DELETE', `/1.0/instances/${name}`).catch(ignoreMissing);
  }

  async #resize(name: string, spec: MachineSpec): Promise<void> {
    const instance = await this.#client.get<InstanceBody>(`/1.0/instances/${name}`);
    const devices = { ...instance.devices };
    if ((await this.#storageDriver()) !== 'dir') {
      const root = instance.devices.root ?? { type: 'disk', path: '/', pool: this.#config.lxdStoragePool };
      devices.root = { ...root, size: `${spec.plan.disk_gb}GiB` };
    }
    await this.#client.run('PUT', `/1.0/instances/${name}`, {
      body: {
        architecture: instance.architecture,
        config: {
          ...instance.config,
          'limits.cpu': String(spec.plan.vcpus),
          'limits.memory': `${spec.plan.ram_mb}MiB`,
        },
        devices,
        profiles: instance.profiles,
        ephemeral: instance.ephemeral ?? false,
        stateful: instance.stateful ?? false,
        description: instance.description ?? '',
      },
    });
  }

  /**
   * Copies the disk into an engine image (through a short-lived engine snapshot); its size in GB.
   * The image names its server and kind, so a server's backups can go with it.
   */
  async #keepAsImage(name: string, snapshotUuid: string, serverUuid: string, action: string): Promise<number> {
    const alias = snapshotAlias(snapshotUuid);
    const existing = await this.#imageByAlias(alias);
    if (existing) return Math.max(1, Math.ceil(existing.size / gb));
    const engineSnapshot = `n${snapshotUuid.replace(/-/g, '').slice(0, 12)}`;
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
              description: `Nubis ${action === 'backup' ? 'backup' : 'snapshot'} ${snapshotUuid}`,
              [imageServerProperty]: serverUuid,
              [imageKindProperty]: action === 'backup' ? 'backup' : 'snapshot',
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
   * NICs for the server's VPCs (hot-plugged), routes and rate limits of eth0, and the addresses
   * written and applied in the guest.
   */
  async #applyNetwork(name: string, spec: MachineSpec): Promise<void> {
    await this.#ensureVpcNetworks(spec);
    const instance = await this.#client.get<InstanceBody>(`/1.0/instances/${name}`);
    const wanted = await this.#devices(spec);
    const devices: Record<string, Record<string, string>> = {};
    for (const [key, device] of Object.entries(instance.devices))
      if (key === 'root' || key === 'eth0') devices[key] = device;
    // The public NIC stays where it is (its address is pinned there); only what is routed to it changes.
    if (instance.devices.eth0) {
      const {
        'ipv4.routes': _v4,
        'ipv6.routes': _v6,
        'limits.egress': _egress,
        'limits.ingress': _ingress,
        ...eth0
      } = instance.devices.eth0;
      const routes = nicRoutes(bridgeOf(spec.region, spec.ipv4), spec);
      devices.eth0 = { ...eth0, ...routes, ...nicLimits(spec) };
    }
    for (const [key, device] of Object.entries(wanted)) if (key !== 'root' && key !== 'eth0') devices[key] = device;
    if (canonicalDevices(devices) !== canonicalDevices(instance.devices))
      await this.#client.run('PUT', `/1.0/instances/${name}`, {
        body: {
          architecture: instance.architecture,
          config: instance.config,
          devices,
          profiles: instance.profiles,
          ephemeral: instance.ephemeral ?? false,
          stateful: instance.stateful ?? false,
          description: instance.description ?? '',
        },
      });
    await this.#client.pushFile(name, '/etc/nubis/network', networkScript(spec), '0755');
    const state = await this.#client.get<InstanceState>(`/1.0/instances/${name}/state`);
    if (state.status === 'Running') {
      const result = await this.#client.exec(name, ['/bin/sh', '/etc/nubis/network']);
      if (result.code !== 0)
        throw new Error(`applying the addresses in the guest failed: ${result.stderr.slice(0, 300)}`);
    }
  }
}

/** The public NIC's rate limits while the server is throttled for bandwidth overage. */
export function nicLimits(spec: Pick<MachineSpec, 'throttle'>): {
  'limits.egress'?: string;
  'limits.ingress'?: string;
} {
  return spec.throttle ? { 'limits.egress': spec.throttle, 'limits.ingress': spec.throttle } : {};
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
