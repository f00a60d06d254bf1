// `nubis images build`: the engine images Nubis boots, built from Debian's packages on this host
// (apt-get download / debootstrap from the configured Debian mirror; nothing from image servers),
// packed as LXD unified image tarballs (metadata.yaml + rootfs/) and imported through the API.
//
// - nubis-tiny: busybox (static) and dropbear from Debian, a shell init: boots in about a second.
//   What the tests and the bench boot.
// - nubis-debian: a minimal Debian (debootstrap minbase) with systemd, openssh-server and cloud-init.
// - nubis-cloud: nubis-debian without the Nubis first-boot unit: cloud-init alone sets it up,
//   network included (the engine's `cloud-init.network-config`), as a customer's cloud image does.
//   What the tests boot to check the network config cloud-init gets.
//
// nubis-tiny and nubis-debian read the first-boot files the driver writes through the API (/etc/hostname,
// /etc/nubis/root-password, /root/.ssh/authorized_keys, /etc/nubis/script_url, /etc/nubis/network,
// /etc/nubis/run-script).

import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
  lstatSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LxdClient } from './lxd-client.ts';
import { cloudImageAlias, defaultImageAlias, tinyImageAlias } from './lxd-names.ts';

export type ImageName = 'tiny' | 'debian' | 'cloud';
export const imageNames: readonly ImageName[] = ['tiny', 'debian', 'cloud'];

const tinyPackages = [
  'busybox-static',
  'dropbear-bin',
  'libc6',
  'libcrypt1',
  'libtomcrypt1',
  'libtommath1',
  'zlib1g',
  'libgmp10',
];
const debianPackages = [
  'systemd-sysv',
  'openssh-server',
  'cloud-init',
  // debootstrap does not resolve the virtual packages python3-cryptography needs.
  'python3-cffi-backend',
  'iproute2',
  'ifupdown',
  'isc-dhcp-client',
  'netbase',
  'ca-certificates',
  'wget',
];
/**
 * The cloud-init-only image adds resolvconf: ifupdown hands it the `dns-nameservers` cloud-init
 * renders from the network config (without it a static configuration leaves resolv.conf as built).
 */
const cloudPackages = [...debianPackages, 'resolvconf'];

/** Applies the first-boot files: shared by both images (busybox sh and dash both run it). */
const firstBoot = `#!/bin/sh
# Nubis first boot (and every boot): hostname, root password, SSH key permissions.
[ -s /etc/hostname ] && hostname "$(cat /etc/hostname)"
if [ -s /etc/nubis/root-password ]; then
  if command -v chpasswd >/dev/null; then
    echo "root:$(cat /etc/nubis/root-password)" | chpasswd && rm -f /etc/nubis/root-password
  else
    hash=$(mkpasswd -m sha512 "$(cat /etc/nubis/root-password)")
    [ -n "$hash" ] && sed -i "s|^root:[^:]*:|root:$hash:|" /etc/shadow && rm -f /etc/nubis/root-password
  fi
fi
[ -d /root/.ssh ] && chmod 700 /root/.ssh && chmod 600 /root/.ssh/authorized_keys 2>/dev/null
exit 0
`;

/**
 * Runs the server's script_url once per disk (first boot; again after a rebuild, reinstall or
 * restore, which make a new disk; not on a reboot) and leaves its outcome where Nubis reads it
 * through the engine's file API: /etc/nubis/script-status (`stage=fetch|run`, `exit=N`) and the
 * output in /var/log/nubis-script.log. The driver pushes it with the other first-boot files, so an
 * image of any age runs it (busybox sh and dash alike).
 */
export const scriptRunner = `#!/bin/sh
[ -s /etc/nubis/script_url ] || exit 0
[ -e /etc/nubis/script-done ] && exit 0
log=/var/log/nubis-script.log
stage=fetch
wget -q -O /tmp/nubis-script "$(cat /etc/nubis/script_url)" >"$log" 2>&1
status=$?
if [ "$status" -eq 0 ]; then
  stage=run
  chmod +x /tmp/nubis-script
  /tmp/nubis-script >"$log" 2>&1 </dev/null
  status=$?
fi
printf 'stage=%s\nexit=%s\n' "$stage" "$status" >/etc/nubis/script-status.new
mv /etc/nubis/script-status.new /etc/nubis/script-status
touch /etc/nubis/script-done
`;

const tinyInit = `#!/bin/sh
# /sbin/init of the Nubis test image: first boot, network (DHCP gives the pinned address), sshd.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc 2>/dev/null
mount -t tmpfs tmpfs /run 2>/dev/null
/etc/nubis/first-boot
ip link set lo up
ip link set eth0 up
udhcpc -b -q -t 20 -T 1 -i eth0 -s /etc/nubis/udhcpc >/dev/null 2>&1
[ -x /etc/nubis/network ] && /etc/nubis/network >/dev/null 2>&1
dropbear -R -E -p 22 2>/var/log/dropbear.log
if [ -x /etc/nubis/run-script ]; then
  /etc/nubis/run-script &
elif [ -s /etc/nubis/script_url ] && [ ! -e /etc/nubis/script-done ]; then
  ( wget -q -O /tmp/nubis-script "$(cat /etc/nubis/script_url)" && chmod +x /tmp/nubis-script && /tmp/nubis-script >/var/log/nubis-script.log 2>&1; touch /etc/nubis/script-done ) &
fi
# The machine's own login on its console, which Nubis's console relays (busybox getty and login).
( while :; do getty -L 38400 console vt102; sleep 1; done ) &
trap 'kill -TERM -1 2>/dev/null; exit 0' PWR TERM INT
while :; do sleep 3600 & wait $!; done
`;

/**
 * The test image's revision, kept in its properties: `npm run test:lxd` rebuilds an image of an
 * older one (2: a getty on the console; 3: init runs /etc/nubis/run-script, which reports the
 * first-boot script's outcome; 4: a lease no longer undoes /etc/nubis/network). Bump it with
 * every change to the image's files.
 */
export const tinyImageRevision = '4';

/**
 * udhcpc's hook. On a server Nubis configures (/etc/nubis/network, pushed before the first boot)
 * the lease changes nothing but runs that script: the lease's prefix would put the bridge's
 * neighbours on-link, where port isolation drops their frames (lxd-driver.ts, networkScript), and a
 * deconfig would flush the server's /32s. Without the script (an instance not made by Nubis), the
 * lease's address as given. (NUBIS_NETWORK, where the script is, is for the hooks' own test only.)
 */
export const udhcpcScript = `#!/bin/sh
network=\${NUBIS_NETWORK:-/etc/nubis/network}
if [ -x "$network" ]; then
  case "$1" in bound|renew) "$network" >/dev/null 2>&1 ;; esac
  exit 0
fi
case "$1" in
  deconfig) ip -4 addr flush dev "$interface" ;;
  bound|renew)
    ip -4 addr show dev "$interface" | grep -q " $ip/" || ip addr add "$ip/\${mask:-24}" dev "$interface"
    [ -n "$router" ] && ip route replace default via "\${router%% *}" dev "$interface"
    ;;
esac
exit 0
`;

/**
 * dhclient's enter hook in nubis-debian (sourced by Debian's dhclient-script). On a server Nubis
 * configures (/etc/nubis/network) a lease gives the DNS servers only, and every event that would
 * touch eth0's IPv4 runs that script instead: dhclient-script adds the lease's prefix at every
 * bind and renewal (`ip addr add`, `ip addr change`) and flushes the interface on expiry or a
 * timeout, each of which would undo the /32 and reach neighbours on-link (lxd-driver.ts,
 * networkScript). With no lease at all (a timeout) the script runs too. Changing `reason`
 * leaves dhclient-script's own case nothing to do. (NUBIS_NETWORK as in udhcpcScript.)
 */
export const dhclientHook = `# Nubis (images.ts): eth0's IPv4 is /etc/nubis/network's; a lease gives DNS only.
nubis_network=\${NUBIS_NETWORK:-/etc/nubis/network}
if [ "$interface" = eth0 ] && [ -x "$nubis_network" ]; then
  case "$reason" in
    BOUND|RENEW|REBIND|REBOOT|EXPIRE|FAIL|RELEASE|STOP|TIMEOUT)
      case "$reason" in BOUND|RENEW|REBIND|REBOOT) make_resolv_conf ;; esac
      "$nubis_network" >/dev/null 2>&1
      reason=NUBIS_STATIC
      ;;
  esac
fi
`;

const debianUnit = `[Unit]
Description=Nubis first boot: hostname, root password, private and floating addresses
After=network-online.target
Wants=network-online.target
Before=ssh.service

[Service]
Type=oneshot
ExecStart=/etc/nubis/first-boot
ExecStart=-/bin/sh /etc/nubis/network
RemainAfterExit=yes

[Install]
WantedBy=multi-user.target
`;

function run(command: string, args: string[], cwd?: string): void {
  execFileSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
}

function metadata(description: string, revision = ''): string {
  return `architecture: x86_64\ncreation_date: ${Math.floor(Date.now() / 1000)}\nproperties:\n  os: debian\n  release: bookworm\n  description: ${description}\n${revision ? `  nubis.revision: "${revision}"\n` : ''}`;
}

function buildTiny(dir: string): void {
  const debs = join(dir, 'debs');
  const rootfs = join(dir, 'rootfs');
  mkdirSync(debs);
  mkdirSync(rootfs);
  run('apt-get', ['download', ...tinyPackages], debs);
  for (const deb of readdirSync(debs)) run('dpkg-deb', ['-x', join(debs, deb), rootfs]);
  for (const path of [
    'usr/share/doc',
    'usr/share/man',
    'usr/share/locale',
    'usr/share/lintian',
    'usr/lib/x86_64-linux-gnu/gconv',
  ])
    rmSync(join(rootfs, path), { recursive: true, force: true });
  for (const path of [
    'sbin',
    'usr/bin',
    'usr/sbin',
    'root/.ssh',
    'etc/dropbear',
    'etc/nubis',
    'proc',
    'sys',
    'dev',
    'tmp',
    'run',
    'var/log',
  ])
    mkdirSync(join(rootfs, path), { recursive: true });
  chmodSync(join(rootfs, 'root/.ssh'), 0o700);
  chmodSync(join(rootfs, 'tmp'), 0o1777);
  const applets = execFileSync(join(rootfs, 'bin/busybox'), ['--list-full'], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  for (const applet of applets) {
    const path = join(rootfs, applet);
    if (!existsSync(path) && applet !== 'sbin/init') symlinkSync('/bin/busybox', path);
  }
  writeFileSync(join(rootfs, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  writeFileSync(join(rootfs, 'etc/shadow'), 'root:*:19000:0:99999:7:::\n', { mode: 0o600 });
  writeFileSync(join(rootfs, 'etc/group'), 'root:x:0:\n');
  writeFileSync(join(rootfs, 'etc/shells'), '/bin/sh\n');
  writeFileSync(join(rootfs, 'etc/hostname'), 'nubis\n');
  writeFileSync(join(rootfs, 'sbin/init'), tinyInit, { mode: 0o755 });
  writeFileSync(join(rootfs, 'etc/nubis/first-boot'), firstBoot, { mode: 0o755 });
  writeFileSync(join(rootfs, 'etc/nubis/udhcpc'), udhcpcScript, { mode: 0o755 });
  writeFileSync(
    join(dir, 'metadata.yaml'),
    metadata('Nubis test image (busybox and dropbear from Debian)', tinyImageRevision),
  );
}

/**
 * The cloud-init-only image's revision, kept in its properties: `npm run test:lxd` builds it when
 * the engine has none of this revision (2: its locale is set, C.UTF-8, so cloud-init's locale
 * module ends without error; 3: a faster boot: cloud-init's datasource and modules cut to Nubis's,
 * no RSA host key, e2scrub, apt timers and modprobe@ masked; 4: sshd starts once the network is up,
 * beside cloud-init's network stage, its host keys made per instance just before it; no
 * documentation, man pages or translations, which the engine remapped file by file at each server's
 * first start; 5: cloud-init's set-passwords finds its setting in place and restarts no sshd).
 * Bump it with every change to the image's files.
 */
export const cloudImageRevision = '5';

/**
 * nubis-debian's revision, kept in its properties like the test images': `npm run test:lxd` builds
 * it when the engine has none of this revision (1: the first revision tested, with the Debian files
 * nubis-cloud's revision 5 has). Bump it with every change to the image's files.
 */
export const debianImageRevision = '1';

function buildDebian(dir: string, mirror: string, cloudOnly = false): void {
  const rootfs = join(dir, 'rootfs');
  const packages = cloudOnly ? cloudPackages : debianPackages;
  run('debootstrap', ['--variant=minbase', `--include=${packages.join(',')}`, 'bookworm', rootfs, mirror]);
  if (cloudOnly) {
    cloudOnlyFiles(rootfs);
    writeFileSync(
      join(dir, 'metadata.yaml'),
      metadata('Nubis Debian 12 configured by cloud-init alone (test image)', cloudImageRevision),
    );
    return;
  }
  mkdirSync(join(rootfs, 'etc/nubis'), { recursive: true });
  writeFileSync(join(rootfs, 'etc/nubis/first-boot'), firstBoot, { mode: 0o755 });
  writeFileSync(join(rootfs, 'etc/systemd/system/nubis-first-boot.service'), debianUnit);
  mkdirSync(join(rootfs, 'etc/systemd/system/multi-user.target.wants'), { recursive: true });
  symlinkSync(
    '/etc/systemd/system/nubis-first-boot.service',
    join(rootfs, 'etc/systemd/system/multi-user.target.wants/nubis-first-boot.service'),
  );
  writeFileSync(
    join(rootfs, 'etc/network/interfaces'),
    'auto lo\niface lo inet loopback\nauto eth0\niface eth0 inet dhcp\n',
  );
  writeFileSync(join(rootfs, 'etc/dhcp/dhclient-enter-hooks.d/nubis'), dhclientHook);
  writeFileSync(join(rootfs, 'etc/ssh/sshd_config.d/nubis.conf'), 'PermitRootLogin yes\nPasswordAuthentication yes\n');
  commonDebianFiles(rootfs);
  writeFileSync(
    join(dir, 'metadata.yaml'),
    metadata('Nubis Debian 12 (minimal, openssh-server, cloud-init)', debianImageRevision),
  );
}

/**
 * What the cloud-init-only image has of its own: interfaces that only source cloud-init's file
 * (/etc/network/interfaces.d/50-cloud-init, its ENI renderer's output), and no Nubis unit.
 */
function cloudOnlyFiles(rootfs: string): void {
  writeFileSync(join(rootfs, 'etc/network/interfaces'), 'source /etc/network/interfaces.d/*\n');
  mkdirSync(join(rootfs, 'etc/systemd/system/multi-user.target.wants'), { recursive: true });
  commonDebianFiles(rootfs);
}

/**
 * What cloud-init does in Nubis's Debian images: the one datasource Nubis feeds (LXD, the engine's
 * `cloud-init.*` keys; named alone, ds-identify probes for no other at boot), and only the modules
 * the user data Nubis writes uses (lxd-driver.ts, userData: hostname, root's key and password, the network
 * config at every boot, the server's script), with the host keys' console listing. The host keys
 * are ed25519 and ECDSA, made afresh for every instance by the image's own unit before sshd starts
 * (hostKeysScript), so cloud-init's ssh module deletes none (`ssh_deletekeys: false`: it would replace
 * the keys sshd already offers) and makes none: no RSA key, whose making took about a second of the boot.
 * `preserve_hostname: true` keeps cloud-init-local, which has not read the user data yet, from
 * setting the engine's instance name as the hostname while sshd already answers: the hostname is the
 * driver's /etc/hostname from the first instant, and the user data's `preserve_hostname: false`
 * lets the network stage set it as the user data says.
 */
export const cloudInitConfig = `datasource_list: [ LXD, None ]
preserve_hostname: true
ssh_genkeytypes: [ ed25519, ecdsa ]
ssh_deletekeys: false
cloud_init_modules: [ set_hostname, update_hostname, update_etc_hosts, users-groups, ssh ]
cloud_config_modules: [ set-passwords, runcmd ]
cloud_final_modules: [ scripts-per-once, scripts-per-boot, scripts-per-instance, scripts-user, ssh-authkey-fingerprints, keys-to-console, final-message ]
`;

/**
 * Units a container server has no use for, masked: e2scrub (ext4 checks of LVM volumes, which a
 * container has none of; its reaper took 1-3.5 s of CPU at each boot, beside cloud-init), the apt
 * timers (a server's updates are its owner's call), and modprobe@ (the kernel is the host's: a
 * container loads no module).
 */
const maskedUnits = [
  'e2scrub_reap.service',
  'e2scrub_all.timer',
  'apt-daily.timer',
  'apt-daily-upgrade.timer',
  'modprobe@.service',
];

/** sshd offers the host keys the image's unit makes (hostKeysScript): ed25519 and ECDSA. */
const sshdHostKeys = 'HostKey /etc/ssh/ssh_host_ed25519_key\nHostKey /etc/ssh/ssh_host_ecdsa_key\n';

/**
 * The host keys, before sshd starts: made anew when the instance id of this boot is not the one
 * they were made for (a server's first boot; one made from another server's snapshot, whose keys
 * it must not share), kept across reboots; every `ssh_host_*` file of an older instance goes, as
 * cloud-init's own `ssh_deletekeys` did. The id is the one cloud-init's LXD datasource uses, read
 * from the engine's meta-data on /dev/lxd/sock (cloud-init itself records it only in its network
 * stage, after sshd has started). Without it (no /dev/lxd) the keys there are kept and missing ones
 * made. (NUBIS_SSH_DIR, and NUBIS_INSTANCE_ID naming a file that holds the id, are for its test.)
 */
export const hostKeysScript = `#!/bin/sh
dir=\${NUBIS_SSH_DIR:-/etc/ssh}
if [ -n "$NUBIS_INSTANCE_ID" ]; then
  id=$(cat "$NUBIS_INSTANCE_ID" 2>/dev/null)
elif [ -S /dev/lxd/sock ]; then
  id=$(python3 -S -c '
import socket
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect("/dev/lxd/sock")
s.sendall(b"GET /1.0/meta-data HTTP/1.0\\r\\n\\r\\n")
answer = b""
while chunk := s.recv(65536):
    answer += chunk
for line in answer.decode().splitlines():
    if line.startswith("instance-id:"):
        print(line.split(":", 1)[1].strip())
' 2>/dev/null)
fi
made="$dir/host-keys.instance-id"
if [ -n "$id" ] && [ "$id" != "$(cat "$made" 2>/dev/null)" ]; then
  rm -f "$dir"/ssh_host_*
fi
for type in ed25519 ecdsa; do
  key="$dir/ssh_host_\${type}_key"
  if [ ! -s "$key" ]; then
    rm -f "$key" "$key.pub"
    ssh-keygen -q -t "$type" -N "" -f "$key" || exit 1
  fi
done
if [ -n "$id" ]; then echo "$id" > "$made"; fi
`;

/**
 * Runs hostKeysScript once a boot, before sshd, outside the default dependencies: sshd no longer
 * waits for sysinit.target, which waits for cloud-init's network stage.
 */
const hostKeysUnit = `[Unit]
Description=SSH host keys (ed25519, ECDSA), new for a new instance
DefaultDependencies=no
After=local-fs.target
Before=ssh.service shutdown.target
Conflicts=shutdown.target
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/usr/lib/nubis/ssh-host-keys
[Install]
WantedBy=multi-user.target
`;

/**
 * sshd starts once the network is up (ssh.service's own `After=network.target`: ifupdown done, so
 * cloud-init-local too) and its host keys are made, beside cloud-init's network stage rather than
 * after it: about a second sooner at the first boot. Root's authorized key is written before the
 * first boot (the driver pushes it; lxd-driver.ts, firstBoot) and the host keys just before sshd
 * starts, so no login is ever accepted before they are in place; the root password, as before, is
 * set later by cloud-init's set-passwords. Out of the default dependencies (sysinit.target, which
 * cloud-init's network stage comes before); the shutdown ordering they gave is said again.
 */
const sshdEarly = `[Unit]
DefaultDependencies=no
Wants=ssh-keygen.service
After=ssh-keygen.service local-fs.target systemd-journald.socket
Conflicts=shutdown.target
Before=shutdown.target
`;

/**
 * cloud-init's network stage orders itself before sshd (`Before=sshd.service`, which Debian's
 * `sshd.service` alias of ssh.service makes binding): a copy of the package's unit without those
 * two lines, in /etc. The build fails if they are gone from the package, so a changed unit is seen.
 */
function cloudInitUnitWithoutSshd(rootfs: string): string {
  const unit = readFileSync(join(rootfs, 'lib/systemd/system/cloud-init.service'), 'utf8');
  const kept = unit.split('\n').filter((line) => line !== 'Before=sshd.service' && line !== 'Wants=sshd.service');
  if (kept.length !== unit.split('\n').length - 2)
    throw new Error(
      "cloud-init.service no longer orders itself before sshd as images.ts expects: look at the package's unit",
    );
  return `# Debian's cloud-init.service without its ordering before sshd (Nubis, images.ts: sshdEarly).\n${kept.join('\n')}`;
}

/**
 * What Debian's cloud images leave out too: documentation (but each package's copyright),
 * man pages (minbase has no `man`), info pages, translations (the locale is C.UTF-8) and lintian
 * overrides. A third of the image's files, each of which the engine shifts to the server's id range
 * at its first start. dpkg leaves them out of packages installed later as well (`path-exclude`).
 */
const leftOut = `# Nubis (images.ts): documentation, man pages and translations left out; each package's copyright kept.
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/lintian/*
`;

/** Removes what `leftOut` excludes from what debootstrap already installed. */
function removeLeftOut(rootfs: string): void {
  for (const path of ['usr/share/man', 'usr/share/info', 'usr/share/locale', 'usr/share/lintian'])
    for (const entry of readdirSync(join(rootfs, path)))
      if (`${path}/${entry}` !== 'usr/share/locale/locale.alias')
        rmSync(join(rootfs, path, entry), { recursive: true, force: true });
  const docs = join(rootfs, 'usr/share/doc');
  for (const pkg of readdirSync(docs)) {
    const dir = join(docs, pkg);
    if (!statSync(dir).isDirectory() || lstatSync(dir).isSymbolicLink()) continue;
    for (const entry of readdirSync(dir))
      if (entry !== 'copyright') rmSync(join(dir, entry), { recursive: true, force: true });
  }
}

/**
 * The datasource and modules, the locale, the apt cache emptied, documentation left out, units
 * masked, SSH host keys made per instance and sshd started beside cloud-init's network stage. The locale is C.UTF-8, the one glibc has built in (minbase
 * has no `locales` package to generate another): said in /etc/default/locale, nothing tries to
 * make another (cloud-init's locale module, before it was left out, tried en_US.UTF-8 with
 * `locale-gen`, absent here, and ended its boot in `status: error`). A customer who wants another
 * locale installs `locales`.
 */
function commonDebianFiles(rootfs: string): void {
  writeFileSync(join(rootfs, 'etc/cloud/cloud.cfg.d/90-nubis.cfg'), cloudInitConfig);
  writeFileSync(join(rootfs, 'etc/default/locale'), 'LANG=C.UTF-8\n');
  rmSync(join(rootfs, 'var/cache/apt/archives'), { recursive: true, force: true });
  mkdirSync(join(rootfs, 'var/cache/apt/archives/partial'), { recursive: true });
  writeFileSync(join(rootfs, 'etc/dpkg/dpkg.cfg.d/nubis-left-out'), leftOut);
  removeLeftOut(rootfs);
  for (const unit of maskedUnits) symlinkSync('/dev/null', join(rootfs, 'etc/systemd/system', unit));
  // Host keys are made at first boot, per instance (hostKeysScript).
  for (const file of readdirSync(join(rootfs, 'etc/ssh')))
    if (file.startsWith('ssh_host_')) rmSync(join(rootfs, 'etc/ssh', file));
  writeFileSync(join(rootfs, 'etc/ssh/sshd_config.d/host-keys.conf'), sshdHostKeys);
  // sshd's own default, said where cloud-init's set-passwords looks: with `ssh_pwauth: true` it
  // then finds nothing to change and does not restart sshd mid-boot, refusing logins a moment.
  // Debian's cloud-init (22.4.2-1+deb12u4) looks in sshd_config.d/50-cloud-init.conf, not in the
  // main file, since the main file includes sshd_config.d.
  writeFileSync(join(rootfs, 'etc/ssh/sshd_config.d/50-cloud-init.conf'), 'PasswordAuthentication yes\n', {
    mode: 0o600,
  });
  mkdirSync(join(rootfs, 'usr/lib/nubis'), { recursive: true });
  writeFileSync(join(rootfs, 'usr/lib/nubis/ssh-host-keys'), hostKeysScript, { mode: 0o755 });
  writeFileSync(join(rootfs, 'etc/systemd/system/ssh-keygen.service'), hostKeysUnit);
  symlinkSync(
    '/etc/systemd/system/ssh-keygen.service',
    join(rootfs, 'etc/systemd/system/multi-user.target.wants/ssh-keygen.service'),
  );
  mkdirSync(join(rootfs, 'etc/systemd/system/ssh.service.d'), { recursive: true });
  writeFileSync(join(rootfs, 'etc/systemd/system/ssh.service.d/nubis-early.conf'), sshdEarly);
  writeFileSync(join(rootfs, 'etc/systemd/system/cloud-init.service'), cloudInitUnitWithoutSshd(rootfs));
}

/** Uploads a unified tarball and points the alias at it (replacing an older image under it). */
async function importImage(client: LxdClient, tarball: string, alias: string): Promise<string> {
  const op = await client.run('POST', '/1.0/images', { raw: readFileSync(tarball) }, 900);
  const fingerprint = String((op?.metadata as { fingerprint?: string } | null)?.fingerprint ?? '');
  if (!fingerprint) throw new Error(`importing ${alias}: the engine reported no fingerprint`);
  if (await client.exists(`/1.0/images/aliases/${alias}`)) {
    const old = await client.get<{ target: string }>(`/1.0/images/aliases/${alias}`);
    await client.call('PUT', `/1.0/images/aliases/${alias}`, { body: { target: fingerprint, description: 'Nubis' } });
    if (old.target !== fingerprint) await client.run('DELETE', `/1.0/images/${old.target}`).catch(() => {});
  } else {
    await client.call('POST', '/1.0/images/aliases', {
      body: { name: alias, target: fingerprint, description: 'Nubis' },
    });
  }
  return fingerprint;
}

export async function buildImages(
  client: LxdClient,
  names: ImageName[],
  options: { mirror: string; log: (line: string) => void },
): Promise<Record<string, string>> {
  const built: Record<string, string> = {};
  for (const name of names) {
    const dir = mkdtempSync(join(tmpdir(), `nubis-image-${name}-`));
    try {
      options.log(`building ${name} in ${dir}`);
      if (name === 'tiny') buildTiny(dir);
      else buildDebian(dir, options.mirror, name === 'cloud');
      run('tar', ['--numeric-owner', '-czf', 'image.tar.gz', 'metadata.yaml', 'rootfs'], dir);
      const alias = { tiny: tinyImageAlias, debian: defaultImageAlias, cloud: cloudImageAlias }[name];
      built[alias] = await importImage(client, join(dir, 'image.tar.gz'), alias);
      options.log(`imported ${alias}: ${built[alias]}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return built;
}
