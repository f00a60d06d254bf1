// The Nubis images' DHCP client hooks (images.ts) leave a server Nubis configures as
// /etc/nubis/network sets it: udhcpc's (nubis-tiny) and dhclient's enter hook (nubis-debian), run
// here with a stand-in `ip` and network script that log what they are asked; dhclient's hook is
// sourced as Debian's dhclient-script sources it (its `reason`, `interface`, `make_resolv_conf`).
// Then the Debian images' host-keys script, with the host's ssh-keygen, in a folder of its own.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { dhclientHook, hostKeysScript, udhcpcScript } from './images.ts';

const dir = mkdtempSync(join(tmpdir(), 'nubis-dhcp-hooks-'));
const log = join(dir, 'log');
after(() => rmSync(dir, { recursive: true, force: true }));

function executable(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  chmodSync(path, 0o755);
  return path;
}
executable('ip', `#!/bin/sh\necho "ip $*" >> ${log}\n`);
const network = executable('network', `#!/bin/sh\necho network >> ${log}\n`);
const udhcpc = executable('udhcpc', udhcpcScript);
writeFileSync(join(dir, 'hook'), dhclientHook);
// What Debian's dhclient-script does around its enter hooks, and the case it then runs.
const dhclientScript = executable(
  'dhclient-script',
  `#!/bin/sh\nmake_resolv_conf() { echo resolv >> ${log}; }\n. ${join(dir, 'hook')}\necho "case $reason" >> ${log}\n`,
);

/** What a run asked of `ip`, the network script and dhclient-script's own case. */
function run(command: string, args: string[], env: Record<string, string>, withScript = true): string[] {
  writeFileSync(log, '');
  const result = spawnSync(command, args, {
    env: { PATH: `${dir}:/usr/bin:/bin`, NUBIS_NETWORK: withScript ? network : join(dir, 'none'), ...env },
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
}

test("udhcpc's hook runs the Nubis network script for a lease and touches no address itself", () => {
  const lease = { interface: 'eth0', ip: '172.30.101.7', mask: '24', router: '172.30.101.1' };
  assert.deepEqual(run(udhcpc, ['deconfig'], lease), []);
  assert.deepEqual(run(udhcpc, ['bound'], lease), ['network']);
  assert.deepEqual(run(udhcpc, ['renew'], lease), ['network']);
  // An instance Nubis did not make takes the lease as given.
  assert.deepEqual(run(udhcpc, ['bound'], lease, false), [
    'ip -4 addr show dev eth0',
    'ip addr add 172.30.101.7/24 dev eth0',
    'ip route replace default via 172.30.101.1 dev eth0',
  ]);
});

test("dhclient's enter hook gives the lease's DNS, runs the Nubis script, and leaves dhclient-script nothing to do", () => {
  for (const reason of ['BOUND', 'RENEW', 'REBIND', 'REBOOT'])
    assert.deepEqual(run(dhclientScript, [], { reason, interface: 'eth0' }), [
      'resolv',
      'network',
      'case NUBIS_STATIC',
    ]);
  for (const reason of ['EXPIRE', 'FAIL', 'RELEASE', 'STOP', 'TIMEOUT'])
    assert.deepEqual(run(dhclientScript, [], { reason, interface: 'eth0' }), ['network', 'case NUBIS_STATIC']);
  assert.deepEqual(run(dhclientScript, [], { reason: 'PREINIT', interface: 'eth0' }), ['case PREINIT']);
  // Another interface, or an instance Nubis did not make: dhclient-script as Debian ships it.
  assert.deepEqual(run(dhclientScript, [], { reason: 'BOUND', interface: 'eth1' }), ['case BOUND']);
  assert.deepEqual(run(dhclientScript, [], { reason: 'BOUND', interface: 'eth0' }, false), ['case BOUND']);
});

/** Runs the Debian images' host-keys script on `sshDir`, cloud-init's instance id of this boot being `id` (none: null). */
function hostKeys(sshDir: string, id: string | null): Record<string, string> {
  const idFile = join(dir, 'instance-id');
  if (id === null) rmSync(idFile, { force: true });
  else writeFileSync(idFile, `${id}\n`);
  const script = executable('ssh-host-keys', hostKeysScript);
  const result = spawnSync(script, [], {
    env: { PATH: '/usr/bin:/bin', NUBIS_SSH_DIR: sshDir, NUBIS_INSTANCE_ID: idFile },
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  return Object.fromEntries(
    readdirSync(sshDir)
      .filter((name) => name.endsWith('.pub'))
      .map((name) => [name, readFileSync(join(sshDir, name), 'utf8')]),
  );
}

test('host keys are made at a first boot, kept across reboots, and made anew for another instance', () => {
  const sshDir = mkdtempSync(join(dir, 'ssh-'));
  const first = hostKeys(sshDir, 'instance-a');
  assert.deepEqual(Object.keys(first).sort(), ['ssh_host_ecdsa_key.pub', 'ssh_host_ed25519_key.pub']);
  assert.deepEqual(hostKeys(sshDir, 'instance-a'), first, 'a reboot keeps them');
  // A server made from another's snapshot: its keys, and any other host key of the old instance, go.
  writeFileSync(join(sshDir, 'ssh_host_rsa_key.pub'), 'an old RSA key\n');
  const other = hostKeys(sshDir, 'instance-b');
  assert.deepEqual(Object.keys(other).sort(), ['ssh_host_ecdsa_key.pub', 'ssh_host_ed25519_key.pub']);
  assert.notEqual(other['ssh_host_ed25519_key.pub'], first['ssh_host_ed25519_key.pub']);
  assert.notEqual(other['ssh_host_ecdsa_key.pub'], first['ssh_host_ecdsa_key.pub']);
  // A boot without cloud-init keeps what is there, then the same instance again keeps it too.
  assert.deepEqual(hostKeys(sshDir, null), other);
  assert.deepEqual(hostKeys(sshDir, 'instance-b'), other);
});

test('a boot without cloud-init makes missing host keys and keeps them', () => {
  const sshDir = mkdtempSync(join(dir, 'ssh-'));
  const made = hostKeys(sshDir, null);
  assert.equal(Object.keys(made).length, 2);
  assert.deepEqual(hostKeys(sshDir, null), made);
});
