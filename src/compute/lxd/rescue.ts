// Rescue mode on LXD/Incus: the server's own instance is stopped and its public NIC (pinned address
// and MAC together) moves to a rescue instance, `nubis-rescue-<uuid>`, which boots the region's
// rescue image with the server's root filesystem mounted at /mnt; leaving deletes the rescue
// instance and gives the NIC back. The MAC moves with the address because the bridge's DHCP server
// keeps a lease per MAC: a new MAC on the same address is refused while the old lease lasts.
//
// LXD 5.0 cannot attach another container's root volume (a disk device's `source` is a custom
// volume or a host path), so the disk is the host path of the container's rootfs, which a btrfs
// pool (its subvolume, under the pool's mount) and a directory pool keep reachable while the
// container is stopped: rescue needs one of them and container servers (docs/decisions.md).

import type { MachineSpec } from '../compute-driver.ts';
import { LxdError, type LxdClient } from './lxd-client.ts';
import { containerRootfs, instanceName, profileName, rescueImageAlias, rescueInstanceName } from './lxd-names.ts';

/** Where the rescue system mounts the server's root filesystem (writable). */
export const rescueMountPath = '/mnt';
/** The hostname of every rescue system, so nobody mistakes it for the server. */
export const rescueHostname = 'rescue';
/** The server instance's public NIC while it is lent to the rescue system: `{device, hwaddr}` as JSON. */
export const lentNicKey = 'user.nubis.rescue.nic';

type Device = Record<string, string>;

interface Instance {
  architecture?: string;
  type?: string;
  config: Record<string, string>;
  devices: Record<string, Device>;
  profiles: string[];
  ephemeral?: boolean;
  stateful?: boolean;
  description?: string;
  /** The cluster member it is on ("none" on an engine that is not clustered). */
  location?: string;
}

/** The member of a cluster an instance is on, or null on an engine that is not clustered. */
function memberOf(instance: Instance): string | null {
  return instance.location && instance.location !== 'none' ? instance.location : null;
}

interface LentNic {
  device: Device;
  hwaddr: string;
}

/** The body of a PUT that writes an instance back with `config` and `devices` replaced. */
function rewrite(instance: Instance, config: Record<string, string>, devices: Record<string, Device>) {
  return {
    architecture: instance.architecture,
    config,
    devices,
    profiles: instance.profiles,
    ephemeral: instance.ephemeral ?? false,
    stateful: instance.stateful ?? false,
    description: instance.description ?? '',
  };
}

function nicOf(lent: LentNic): Device {
  return lent.hwaddr ? { ...lent.device, hwaddr: lent.hwaddr } : lent.device;
}

/**
 * Takes the public NIC off the (stopped) server instance, remembering it there, and returns the NIC
 * the rescue system gets: the same device with the same MAC. `fallback` is the NIC the server
 * would be created with, for an instance that has none. Idempotent: a NIC already lent is returned.
 */
export async function lendNic(client: LxdClient, serverUuid: string, fallback: Device): Promise<Device> {
  const name = instanceName(serverUuid);
  const instance = await client.get<Instance>(`/1.0/instances/${name}`);
  const lent = instance.config[lentNicKey];
  if (lent) return nicOf(JSON.parse(lent) as LentNic);
  const { eth0, ...devices } = instance.devices;
  const device = eth0 ?? fallback;
  const nic: LentNic = { device, hwaddr: device.hwaddr ?? instance.config['volatile.eth0.hwaddr'] ?? '' };
  await client.run('PUT', `/1.0/instances/${name}`, {
    body: rewrite(instance, { ...instance.config, [lentNicKey]: JSON.stringify(nic) }, devices),
  });
  return nicOf(nic);
}

/** Gives the server instance its public NIC back, with its MAC (after the rescue instance is gone). */
export async function takeNicBack(client: LxdClient, serverUuid: string): Promise<void> {
  const name = instanceName(serverUuid);
  const instance = await client.get<Instance>(`/1.0/instances/${name}`).catch((error: unknown) => {
    if (error instanceof LxdError && error.status === 404) return null;
    throw error;
  });
  const lent = instance?.config[lentNicKey];
  if (!instance || !lent) return;
  const nic = JSON.parse(lent) as LentNic;
  const config = { ...instance.config };
  delete config[lentNicKey];
  if (nic.hwaddr && !nic.device.hwaddr) config['volatile.eth0.hwaddr'] = nic.hwaddr;
  await client.run('PUT', `/1.0/instances/${name}`, {
    body: rewrite(instance, config, { ...instance.devices, eth0: nic.device }),
  });
}

/** One range of an LXD id map (`volatile.idmap.*`): `Maprange` ids from `Nsid` inside, from `Hostid` on the host. */
interface IdmapEntry {
  Isuid: boolean;
  Isgid: boolean;
  Hostid: number;
  Nsid: number;
  Maprange: number;
}

function idmapOf(text: string | undefined): IdmapEntry[] {
  return JSON.parse(text || '[]') as IdmapEntry[];
}

/**
 * Makes the (stopped) server container's rootfs on disk hold its own id map: the engine shifts a
 * container's files to its map when it starts, so a container that never ran, or whose map changed
 * since it last ran (it became isolated), is started and stopped once. The rescue system, given
 * the same map (rescueIdmap), then sees the owners right. Mounting the disk unshifted would need
 * idmapped mounts for disk devices, which not every host has (LXD answers "idmapping abilities
 * are required"); an engine that has them keeps rootfs unshifted (an empty map after a start).
 */
export async function shiftToItsMap(client: LxdClient, serverUuid: string): Promise<void> {
  const name = instanceName(serverUuid);
  const { config } = await client.get<Instance>(`/1.0/instances/${name}`);
  const onDisk = idmapOf(config['volatile.last_state.idmap']);
  const ranOnce = !!config['volatile.last_state.power'];
  const next = JSON.stringify(idmapOf(config['volatile.idmap.next']));
  if (ranOnce && (onDisk.length === 0 || JSON.stringify(onDisk) === next)) return;
  await client.run('PUT', `/1.0/instances/${name}/state`, { body: { action: 'start', timeout: 30 } });
  await client.run('PUT', `/1.0/instances/${name}/state`, { body: { action: 'stop', force: true, timeout: 30 } });
}

/**
 * The rescue system's id map: the one the server's files are shifted to (its own isolated range),
 * so root in the rescue system is root of the server's disk and no one else's; on an engine that
 * keeps rootfs unshifted, a range of its own (the disk is idmapped at mount).
 */
async function rescueIdmap(client: LxdClient, serverUuid: string): Promise<Record<string, string>> {
  const { config } = await client.get<Instance>(`/1.0/instances/${instanceName(serverUuid)}`);
  const root = idmapOf(config['volatile.last_state.idmap']).find((entry) => entry.Isuid && entry.Nsid === 0);
  return {
    'security.idmap.isolated': 'true',
    ...(root ? { 'security.idmap.base': String(root.Hostid), 'security.idmap.size': String(root.Maprange) } : {}),
  };
}

/**
 * The disk device that shows the server's root filesystem in the rescue system: as stored, since
 * it is shifted to the id map both containers share (see shiftToItsMap); shifted at mount time on a
 * host whose engine keeps rootfs unshifted and idmaps it instead (no idmap recorded).
 */
async function serverDisk(
  client: LxdClient,
  pool: string,
  project: string,
  serverUuid: string,
): Promise<{ device: Device; member: string | null }> {
  const name = instanceName(serverUuid);
  const server = await client.get<Instance>(`/1.0/instances/${name}`);
  // On a cluster the disk is on the server's member, whose own pool source says where.
  const member = memberOf(server);
  const storage = await client.get<{ driver: string; config: Record<string, string> }>(
    `/1.0/storage-pools/${pool}${member ? `?target=${encodeURIComponent(member)}` : ''}`,
  );
  const mount = poolMount(pool, storage);
  if (!mount)
    throw new Error(
      `rescue mode needs a btrfs or dir storage pool: pool ${pool} is ${storage.driver}, which does not keep a stopped container's disk reachable`,
    );
  if (server.type && server.type !== 'container')
    throw new Error('rescue mode is available for container servers only');
  const shifted = (server.config['volatile.last_state.idmap'] ?? '[]') !== '[]';
  return {
    device: {
      type: 'disk',
      source: containerRootfs(mount, project, name),
      path: rescueMountPath,
      ...(shifted ? {} : { shift: 'true' }),
    },
    member,
  };
}

/**
 * Where the engine's host keeps the pool's volumes mounted, stopped containers' included: a `dir`
 * pool's source; a btrfs pool's mount under the engine's directory (every subvolume is reachable
 * while the pool is mounted, and a write there counts against the container's quota, its qgroup).
 * The engine's directory is read off a loop file's path (`<dir>/disks/<pool>.img`), else Debian's.
 * Null for drivers whose stopped volumes are unmounted (zfs, lvm, ceph).
 */
export function poolMount(pool: string, storage: { driver: string; config: Record<string, string> }): string | null {
  const source = storage.config.source ?? '';
  if (storage.driver === 'dir') return source || null;
  if (storage.driver !== 'btrfs') return null;
  const loop = source.match(/^(.*)\/disks\/[^/]+\.img$/);
  return `${loop ? loop[1] : '/var/lib/lxd'}/storage-pools/${pool}`;
}

/** Creates the (stopped) rescue instance of a server whose NIC it has been lent. */
export async function createRescue(
  client: LxdClient,
  options: { pool: string; project: string; spec: MachineSpec; nic: Device; userData: string },
): Promise<void> {
  const { spec } = options;
  const disk = await serverDisk(client, options.pool, options.project, spec.uuid);
  // Beside the server: the disk it mounts is a path on that member.
  await client.run('POST', `/1.0/instances${disk.member ? `?target=${encodeURIComponent(disk.member)}` : ''}`, {
    body: {
      name: rescueInstanceName(spec.uuid),
      type: 'container',
      description: `Nubis rescue system of ${spec.hostname}`,
      source: { type: 'image', alias: rescueImageAlias(spec.region) },
      profiles: [profileName],
      config: {
        'limits.cpu': String(spec.plan.vcpus),
        'limits.memory': `${spec.plan.ram_mb}MiB`,
        ...(await rescueIdmap(client, spec.uuid)),
        'cloud-init.user-data': options.userData,
        'user.nubis.rescue': spec.uuid,
      },
      devices: {
        eth0: options.nic,
        disk: disk.device,
      },
    },
  });
}

/** What the rescue system reads at boot: its hostname, the server's root password and key, a notice. */
export async function pushRescueFiles(client: LxdClient, spec: MachineSpec): Promise<void> {
  const name = rescueInstanceName(spec.uuid);
  const notice = `Nubis rescue system of ${spec.hostname}: its root filesystem is mounted at ${rescueMountPath}.\n`;
  await client.pushFile(name, '/etc/hostname', `${rescueHostname}\n`);
  await client.pushFile(name, '/etc/nubis/rescue', notice);
  await client.pushFile(name, '/etc/motd', notice);
  await client.pushFile(name, '/etc/nubis/root-password', spec.rootPassword(), '0600');
  if (spec.sshPublicKey)
    await client.pushFile(name, '/root/.ssh/authorized_keys', `${spec.sshPublicKey.trim()}\n`, '0600');
}
