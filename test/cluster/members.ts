// The test cluster of `npm run test:cluster`: three LXD cluster members, each a privileged system
// container with `security.nesting` on this machine's LXD, holding Debian's LXD 5.0 (a root built
// from Debian's packages with debootstrap, kept as the engine image `nubis-member` so later runs
// reuse it), joined with LXD's own clustering. Built once and reused while healthy.
//
// On the host: `nubisc-mgmt` (the members' own network: cluster traffic, VPC tunnels, the API
// Nubis calls) and `nubisc-up`, the public uplink every member's second NIC (eth1) sits on, with
// the host's address on it (the test's SSH comes from there). Nothing else on the host is touched.

import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const memberImageAlias = 'nubis-member';
/** Bump with every change to the member root (its packages or its init): a run rebuilds an older one. */
export const memberImageRevision = '3';
export const memberNames = ['nubis-member-1', 'nubis-member-2', 'nubis-member-3'];
export const mgmtNetwork = { name: 'nubisc-mgmt', prefix: '172.31.200', bits: 24 };
/** The public uplink: the cluster region's pool is 172.31.201.0/24, the host holds its last address. */
export const uplinkNetwork = { name: 'nubisc-up', hostAddress: '172.31.201.254', bits: 24 };
/**
 * The host's storage pool for the members' roots (a plain directory each). The servers' pool inside
 * each member is btrfs on a loop file of the member's own (made by `nubis compute setup`).
 */
export const memberStoragePool = 'nubisc-members';
/** The interface of every member on the uplink (its second NIC). */
export const uplinkInterface = 'eth1';
/** The size of each member's loop file for the servers' btrfs pool (sparse: it takes what is written). */
export const memberPoolSize = '8GiB';
export const clusterGroup = 'nubis-test';
/** Where the client certificate Nubis presents to the cluster, and the cluster's own, are kept. */
export const stateDir = '/var/tmp/nubis-cluster';

const memberPackages = [
  'lxd',
  'btrfs-progs',
  'dnsmasq-base',
  'iproute2',
  'nftables',
  'iptables',
  'ebtables',
  'procps',
  'netbase',
];

/**
 * The member's /sbin/init: its address on the members' network (from the instance's environment),
 * the uplink NIC up with no address (the engine bridges it), then LXD from `/` (a daemon started in
 * a folder that goes away fails its rsyncs) and a wait for the power signals. The loop devices are
 * the host's (LXC's /dev has none): their nodes are made here, the devices cgroup lets them be used
 * (raw.lxc), so the member's engine makes its loop-backed btrfs pool as a real host's does.
 */
const memberInit = `#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t tmpfs tmpfs /run 2>/dev/null
mkdir -p /run/lock /var/log/lxd
# The cgroup hierarchies the nested LXD puts its instances' limits in (v1 as this host has them, else v2).
if ! mountpoint -q /sys/fs/cgroup; then
  mount -t tmpfs -o mode=755 tmpfs /sys/fs/cgroup
  hierarchies=$(cut -d: -f2 /proc/self/cgroup)
  for controllers in $hierarchies; do
    dir=\${controllers#name=}
    case $controllers in name=*) options=none,$controllers ;; *) options=$controllers ;; esac
    mkdir -p "/sys/fs/cgroup/$dir" && mount -t cgroup -o "$options" cgroup "/sys/fs/cgroup/$dir"
  done
  [ -z "$hierarchies" ] && mount -t cgroup2 cgroup2 /sys/fs/cgroup
fi
[ -e /dev/loop-control ] || mknod -m 660 /dev/loop-control c 10 237
for n in $(seq 0 63); do [ -e /dev/loop$n ] || mknod -m 660 /dev/loop$n b 7 $n; done
ip link set lo up
ip link set eth0 up
ip addr add "$NUBIS_ADDRESS" dev eth0
ip route add default via "$NUBIS_GATEWAY"
ip link set eth1 up 2>/dev/null
sysctl -qw net.ipv4.ip_forward=1
cd / && lxd --group root --logfile /var/log/lxd/lxd.log >/var/log/lxd/daemon.out 2>&1 &
trap 'lxd shutdown --timeout 30; kill -TERM -1 2>/dev/null; exit 0' PWR TERM INT
while :; do sleep 3600 & wait $!; done
`;

export function lxc(args: string[], input?: string): string {
  const result = spawnSync('lxc', args, { encoding: 'utf8', input, timeout: 600_000 });
  if (result.status !== 0) throw new Error(`lxc ${args.join(' ')}: ${result.stderr.trim() || result.stdout.trim()}`);
  return result.stdout;
}

function lxcOk(args: string[]): boolean {
  return spawnSync('lxc', args, { encoding: 'utf8' }).status === 0;
}

/** Runs a command in a member (its own `lxc` talks to its LXD). */
export function inMember(member: string, command: string, input?: string): string {
  return lxc(['exec', member, '--', 'sh', '-c', command], input);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, seconds: number, probe: () => boolean): Promise<void> {
  const end = Date.now() + seconds * 1000;
  while (!probe()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${seconds} s`);
    await sleep(1000);
  }
}

export function memberAddress(index: number): string {
  return `${mgmtNetwork.prefix}.${11 + index}`;
}

function imageRevision(): string | null {
  const found = spawnSync('lxc', ['image', 'get-property', memberImageAlias, 'nubis.revision'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

/** Builds the member image from Debian's packages (debootstrap minbase with LXD) unless it is current. */
export function ensureMemberImage(log: (line: string) => void, mirror = 'http://deb.debian.org/debian'): void {
  if (imageRevision() === memberImageRevision) return;
  const dir = mkdtempSync(join('/var/tmp', 'nubis-member-image-'));
  try {
    log(`building the member image ${memberImageAlias} in ${dir} (debootstrap from ${mirror})`);
    const rootfs = join(dir, 'rootfs');
    execFileSync(
      'debootstrap',
      ['--variant=minbase', `--include=${memberPackages.join(',')}`, 'bookworm', rootfs, mirror],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    writeFileSync(join(rootfs, 'sbin/init.nubis'), memberInit, { mode: 0o755 });
    rmSync(join(rootfs, 'sbin/init'), { force: true });
    execFileSync('ln', ['-s', 'init.nubis', join(rootfs, 'sbin/init')]);
    rmSync(join(rootfs, 'var/cache/apt/archives'), { recursive: true, force: true });
    writeFileSync(
      join(dir, 'metadata.yaml'),
      `architecture: x86_64\ncreation_date: ${Math.floor(Date.now() / 1000)}\nproperties:\n  os: debian\n  release: bookworm\n  description: Nubis test cluster member (Debian's LXD 5.0)\n  nubis.revision: "${memberImageRevision}"\n`,
    );
    execFileSync('tar', ['--numeric-owner', '-czf', 'image.tar.gz', 'metadata.yaml', 'rootfs'], { cwd: dir });
    if (imageRevision() !== null) lxc(['image', 'delete', memberImageAlias]);
    lxc(['image', 'import', join(dir, 'image.tar.gz'), '--alias', memberImageAlias]);
    log(`imported ${memberImageAlias}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function ensureHostNetworks(): void {
  if (!lxcOk(['network', 'show', mgmtNetwork.name]))
    lxc([
      'network',
      'create',
      mgmtNetwork.name,
      `ipv4.address=${mgmtNetwork.prefix}.1/${mgmtNetwork.bits}`,
      // No NAT: it would rewrite the source of the VPC tunnels' multicast to the host's address,
      // and the members would answer the host instead of each other.
      'ipv4.nat=false',
      'ipv4.dhcp=false',
      'ipv6.address=none',
    ]);
  if (!lxcOk(['network', 'show', uplinkNetwork.name]))
    lxc([
      'network',
      'create',
      uplinkNetwork.name,
      `ipv4.address=${uplinkNetwork.hostAddress}/${uplinkNetwork.bits}`,
      'ipv4.nat=false',
      'ipv4.dhcp=false',
      'ipv4.firewall=false',
      'ipv6.address=none',
    ]);
  if (!lxcOk(['storage', 'show', memberStoragePool])) lxc(['storage', 'create', memberStoragePool, 'dir']);
}

export interface ClusterMember {
  server_name: string;
  status: string;
  groups?: string[];
}

/** The members as the cluster reports them (from the first member); null when it does not answer. */
export function clusterMembers(): ClusterMember[] | null {
  const result = spawnSync('lxc', ['exec', memberNames[0]!, '--', 'lxc', 'query', '/1.0/cluster/members?recursion=1'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (result.status !== 0) return null;
  try {
    return JSON.parse(result.stdout) as ClusterMember[];
  } catch {
    return null;
  }
}

/** Whether every member is of the current member image (older ones are made afresh). */
function current(): boolean {
  return memberNames.every(
    (name) =>
      spawnSync('lxc', ['config', 'get', name, 'user.nubis.revision'], { encoding: 'utf8' }).stdout.trim() ===
      memberImageRevision,
  );
}

function healthy(): boolean {
  const members = clusterMembers();
  return (
    members !== null &&
    members.length === memberNames.length &&
    members.every((m) => m.status === 'Online' && (m.groups ?? []).includes(clusterGroup))
  );
}

function memberState(name: string): string | null {
  const found = spawnSync('lxc', ['list', `^${name}$`, '--format', 'csv', '-c', 's'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() ? found.stdout.trim() : null;
}

async function lxdReady(member: string): Promise<void> {
  await until(`LXD in ${member}`, 120, () =>
    lxcOk(['exec', member, '--', 'sh', '-c', 'lxd waitready --timeout 5 && lxc query /1.0 >/dev/null']),
  );
}

/** Lets a member use the host's loop devices (block 7:*, /dev/loop-control) in its devices cgroup. */
function loopDevicesAllowed(): string {
  const key = existsSync('/sys/fs/cgroup/cgroup.controllers')
    ? 'lxc.cgroup2.devices.allow'
    : 'lxc.cgroup.devices.allow';
  return `${key} = c 10:237 rwm\n${key} = b 7:* rwm\n`;
}

async function makeMember(index: number): Promise<void> {
  const name = memberNames[index]!;
  lxc([
    'init',
    memberImageAlias,
    name,
    '--storage',
    memberStoragePool,
    '--no-profiles',
    '-c',
    'security.privileged=true',
    '-c',
    'security.nesting=true',
    '-c',
    `raw.lxc=${loopDevicesAllowed()}`,
    '-c',
    'limits.memory=1536MiB',
    '-c',
    `user.nubis.revision=${memberImageRevision}`,
    '-c',
    `environment.NUBIS_ADDRESS=${memberAddress(index)}/${mgmtNetwork.bits}`,
    '-c',
    `environment.NUBIS_GATEWAY=${mgmtNetwork.prefix}.1`,
  ]);
  lxc(['config', 'device', 'add', name, 'eth0', 'nic', 'nictype=bridged', `parent=${mgmtNetwork.name}`, 'name=eth0']);
  // Isolated on the uplink: the members' servers reach the host there, not each other's member
  // directly (what port isolation does on one member's bridge, kept across members).
  lxc([
    'config',
    'device',
    'add',
    name,
    'eth1',
    'nic',
    'nictype=bridged',
    `parent=${uplinkNetwork.name}`,
    'name=eth1',
    'security.port_isolation=true',
  ]);
  lxc(['start', name]);
  await lxdReady(name);
}

/** The cluster's own certificate (what Nubis pins) and a client certificate the cluster trusts. */
function ensureClientCertificate(): void {
  mkdirSync(stateDir, { recursive: true });
  chmodSync(stateDir, 0o700);
  const cert = join(stateDir, 'client.crt');
  const key = join(stateDir, 'client.key');
  if (!existsSync(cert) || !existsSync(key))
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:secp384r1', '-nodes', '-days', '3650'].concat([
        '-subj',
        '/CN=nubis-cluster-test',
        '-keyout',
        key,
        '-out',
        cert,
      ]),
      { stdio: 'ignore' },
    );
  const first = memberNames[0]!;
  const fingerprint = execFileSync('openssl', ['x509', '-in', cert, '-noout', '-fingerprint', '-sha256'], {
    encoding: 'utf8',
  })
    .replace(/^.*=/, '')
    .replace(/:/g, '')
    .trim()
    .toLowerCase();
  const trusted = inMember(first, 'lxc query /1.0/certificates?recursion=1');
  if (!trusted.includes(fingerprint)) {
    lxc(['file', 'push', cert, `${first}/root/nubis-client.crt`]);
    inMember(first, 'lxc config trust add /root/nubis-client.crt --name nubis');
  }
  writeFileSync(join(stateDir, 'cluster.crt'), inMember(first, 'cat /var/lib/lxd/cluster.crt'));
}

export interface TestCluster {
  url: string;
  clientCert: string;
  clientKey: string;
  serverCert: string;
  members: string[];
}

export function clusterConnection(): TestCluster {
  return {
    url: `https://${memberAddress(0)}:8443`,
    clientCert: join(stateDir, 'client.crt'),
    clientKey: join(stateDir, 'client.key'),
    serverCert: join(stateDir, 'cluster.crt'),
    members: memberNames,
  };
}

/**
 * The cluster, built when missing or unhealthy (members made afresh), started when stopped, reused
 * when every member is online in the cluster group.
 */
export async function ensureCluster(log: (line: string) => void): Promise<TestCluster> {
  const reusable = current();
  if (reusable) for (const name of memberNames) if (memberState(name) === 'STOPPED') lxc(['start', name]);
  if (reusable && memberNames.every((name) => memberState(name) === 'RUNNING')) {
    for (const name of memberNames) await lxdReady(name).catch(() => {});
    await until('the cluster online', 60, healthy).catch(() => {});
  }
  if (reusable && healthy()) {
    log(`reusing the cluster of ${memberNames.length} members (${memberNames.join(', ')})`);
  } else {
    ensureMemberImage(log);
    ensureHostNetworks();
    for (const name of memberNames) if (memberState(name) !== null) lxc(['delete', '--force', name]);
    for (let i = 0; i < memberNames.length; i++) await makeMember(i);
    const [first, ...rest] = memberNames as [string, ...string[]];
    inMember(
      first,
      'lxd init --preseed',
      `config:\n  core.https_address: ${memberAddress(0)}:8443\ncluster:\n  server_name: ${first}\n  enabled: true\n`,
    );
    for (const [offset, name] of rest.entries()) {
      const token = inMember(first, `lxc cluster add ${name} --quiet`).trim();
      inMember(
        name,
        'lxd init --preseed',
        `cluster:\n  enabled: true\n  server_name: ${name}\n  server_address: ${memberAddress(offset + 1)}:8443\n  cluster_token: ${token}\n`,
      );
    }
    inMember(first, `lxc cluster group create ${clusterGroup}`);
    for (const name of memberNames) inMember(first, `lxc cluster group assign ${name} default,${clusterGroup}`);
    await until('the cluster online', 120, healthy);
    log(`built a cluster of ${memberNames.length} members (${memberNames.join(', ')})`);
  }
  ensureClientCertificate();
  return clusterConnection();
}

/**
 * Puts a member back after a test took it (a member lost: stopped hard, then removed from the
 * cluster): the container made afresh and joined again, with the member's own keys of the pools and
 * networks the cluster has by now (the uplink for a bridge, a loop file's size for the pool).
 */
/** A member's own value of a pool's or network's key when it joins (the engine's default for the rest). */
function memberValue(entry: { entity: string; key: string }): string {
  if (entry.key === 'bridge.external_interfaces') return uplinkInterface;
  if (entry.entity === 'storage-pool' && entry.key === 'size') return memberPoolSize;
  return '';
}

export async function replaceMember(name: string): Promise<void> {
  const index = memberNames.indexOf(name);
  if (index < 1) throw new Error(`${name}: only a member other than the first is replaced`);
  const first = memberNames[0]!;
  const members = clusterMembers() ?? [];
  if (members.some((m) => m.server_name === name))
    lxc(['exec', first, '--', 'lxc', 'cluster', 'remove', '--force', name], 'yes\n');
  if (memberState(name) !== null) lxc(['delete', '--force', name]);
  await makeMember(index);
  const token = inMember(first, `lxc cluster add ${name} --quiet`).trim();
  const cluster = JSON.parse(inMember(first, 'lxc query /1.0/cluster')) as {
    member_config?: { entity: string; name: string; key: string }[];
  };
  const memberConfig = (cluster.member_config ?? [])
    .map(
      (entry) =>
        `  - entity: ${entry.entity}\n    name: ${entry.name}\n    key: ${entry.key}\n    value: "${memberValue(entry)}"\n`,
    )
    .join('');
  inMember(
    name,
    'lxd init --preseed',
    `cluster:\n  enabled: true\n  server_name: ${name}\n  server_address: ${memberAddress(index)}:8443\n  cluster_token: ${token}\n${memberConfig ? `  member_config:\n${memberConfig}` : ''}`,
  );
  inMember(first, `lxc cluster group assign ${name} default,${clusterGroup}`);
  await until('the cluster online', 120, healthy);
}

/** Whether this machine can run the members: an engine, and nesting (a privileged container's). */
export function nestingProblem(): string | null {
  if (spawnSync('lxc', ['info'], { encoding: 'utf8' }).status !== 0)
    return "this machine's LXD does not answer (lxc info)";
  if (spawnSync('which', ['debootstrap']).status !== 0 && imageRevision() !== memberImageRevision)
    return 'debootstrap is missing (apt-get install debootstrap), and the member image is not built';
  if (process.getuid?.() !== 0) return 'not root: the members are privileged containers';
  return null;
}
