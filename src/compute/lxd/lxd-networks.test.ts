// The lxd driver's address plumbing without an engine: the bridges of a region, the routes to a
// server's NIC, the overlap check of `nubis compute setup`, and the guest's network script run
// against a stand-in `ip` that records what it is told.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCatalog } from '../../catalog/catalog.ts';
import type { Region } from '../../catalog/catalog.types.ts';
import type { MachineSpec } from '../compute-driver.ts';
import { networkScript } from './lxd-driver.ts';
import { bridgeOf, ipv6Block, ipv6FirstHost, nicRoutes, parsePrefix, regionBridges } from './lxd-networks.ts';
import { overlapProblems, type HostNetwork } from './setup.ts';

const shipped = loadCatalog(null, 0).regions.get(101)!;
const region: Region = {
  ...shipped,
  pools: { v4: ['172.30.102.0/30', '172.30.103.0/24'], v6: 'fd4e:7562:6973::/48' },
  features: { ...shipped.features, ipv6: true },
};

function host(name: string, cidr: string): HostNetwork {
  return { name, cidr, prefix: parsePrefix(cidr)! };
}

test('a region has one bridge per IPv4 pool, each with its gateway and a /80 of IPv6 block 0', () => {
  const bridges = regionBridges(region);
  assert.deepEqual(
    bridges.map((b) => [b.name, b.config['ipv4.address'], b.config['ipv6.address'], b.ipv6?.subnet]),
    [
      ['nubis-101', '172.30.102.1/30', 'fd4e:7562:6973:0:1::1/80', 'fd4e:7562:6973:0:1::/80'],
      ['nubis-101p2', '172.30.103.1/24', 'fd4e:7562:6973:0:2::1/80', 'fd4e:7562:6973:0:2::/80'],
    ],
  );
  const noV6 = regionBridges({ ...region, features: { ...region.features, ipv6: false } });
  assert.equal(noV6[0]!.config['ipv6.address'], 'none');
  assert.equal(bridgeOf(region, '172.30.103.7')!.name, 'nubis-101p2');
  assert.equal(bridgeOf(region, '172.30.102.2')!.name, 'nubis-101');
});

test("a server's NIC gets its IPv6 /64 and every floating IP, its own bridge's pool's too (the filter allows routes)", () => {
  assert.deepEqual(
    nicRoutes({
      ipv6: 'fd4e:7562:6973:2a::1',
      floating: ['172.30.102.2', '172.30.103.9', 'fd4e:7562:6973:b0::'],
    }),
    {
      'ipv4.routes': '172.30.102.2/32,172.30.103.9/32',
      'ipv6.routes': 'fd4e:7562:6973:2a::/64,fd4e:7562:6973:b0::/64',
    },
  );
  assert.deepEqual(nicRoutes({ ipv6: null, floating: [] }), {});
  assert.equal(ipv6Block('2001:db8:101:ff00::1'), '2001:db8:101:ff00::/64');
  assert.equal(ipv6FirstHost('2001:db8:0:7::'), '2001:db8:0:7::1');
});

test('setup refuses every pool, IPv4 or IPv6, that overlaps a network of the host, and says which', () => {
  assert.deepEqual(overlapProblems([region], [host('eth0', '192.0.2.2/24'), host('eth0', 'fd00::2/64')]), []);
  const problems = overlapProblems(
    [region],
    [host('eth0', '172.30.103.200/16'), host('wg0', 'fd4e:7562:6973:5::9/64')],
  );
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.match(problems[0]!, /pool 172\.30\.102\.0\/30 overlaps the host's network 172\.30\.103\.200\/16 on eth0/);
  assert.match(problems[1]!, /pool 172\.30\.103\.0\/24 overlaps/);
  assert.match(problems[2]!, /pool fd4e:7562:6973::\/48 overlaps the host's network fd4e:7562:6973:5::9\/64 on wg0/);
  const long = { ...region, engine: { network: 'nubis-region-12' } };
  assert.match(overlapProblems([long], []).join('\n'), /nubis-region-12p2 .* longer than 15 characters/);
  const prefixed = { ...region, id: 9, engine: { network: 'nubis-101-x' } };
  assert.match(overlapProblems([region, prefixed], []).join('\n'), /nubis-101-x starts with "nubis-101-"/);
});

/** Runs the script with a stand-in `ip` holding `held` on eth0; what it added and removed. */
function runScript(spec: MachineSpec, held: { v4: string[]; v6: string[] }): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'nubis-netscript-'));
  const log = join(dir, 'log');
  writeFileSync(
    join(dir, 'ip'),
    `#!/bin/sh
case "$*" in
  "-4 -o addr show dev eth0") for a in ${held.v4.join(' ')}; do echo "2: eth0    inet $a scope global eth0"; done ;;
  "-6 -o addr show dev eth0 scope global") for a in ${held.v6.join(' ')}; do echo "2: eth0    inet6 $a scope global"; done ;;
  *) echo "$*" >> ${log} ;;
esac
`,
  );
  chmodSync(join(dir, 'ip'), 0o755);
  // A stand-in /proc too: the script must not set this host's own settings.
  const settings = ['ipv4', 'ipv6'].map((family) => join(dir, `proc/sys/net/${family}/conf/eth0`));
  for (const folder of settings) {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'accept_redirects'), '1\n');
  }
  const script = join(dir, 'network');
  writeFileSync(script, networkScript(spec));
  const result = spawnSync('sh', [script], {
    env: { PATH: `${dir}:/usr/bin:/bin`, NUBIS_PROC: join(dir, 'proc') },
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, result.stderr);
  for (const folder of settings)
    assert.equal(readFileSync(join(folder, 'accept_redirects'), 'utf8'), '0\n', `${folder}: redirects ignored`);
  try {
    return readFileSync(log, 'utf8').trim().split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

test('the network script holds the public, IPv6 and floating addresses on eth0, leaving in place what stays', () => {
  const spec = {
    region,
    ipv4: '172.30.103.7',
    ipv6: 'fd4e:7562:6973:2a::',
    floating: ['172.30.102.2', 'fd4e:7562:6973:b0::'],
    vpcs: [],
  } as unknown as MachineSpec;
  // DHCP gave the pool's prefix: the server's address becomes a /32 with its gateway on-link.
  assert.deepEqual(runScript(spec, { v4: ['172.30.103.7/24'], v6: [] }), [
    '-4 addr add 172.30.103.7/32 dev eth0',
    '-4 addr add 172.30.102.2/32 dev eth0',
    '-4 route replace 172.30.103.1 dev eth0 scope link src 172.30.103.7',
    '-4 addr del 172.30.103.7/24 dev eth0',
    '-4 route replace default via 172.30.103.1 dev eth0 src 172.30.103.7',
    '-6 addr add fd4e:7562:6973:2a::1/64 dev eth0',
    '-6 addr add fd4e:7562:6973:b0::1/64 dev eth0',
    '-6 route replace fd4e:7562:6973:0:2::/80 dev eth0',
    '-6 route replace default via fd4e:7562:6973:0:2::1 dev eth0',
  ]);
  // The floating IPv4 detached, an old floating IPv6 gone: only those change.
  assert.deepEqual(
    runScript(
      { ...spec, floating: ['fd4e:7562:6973:b0::'] },
      {
        v4: ['172.30.103.7/32', '172.30.102.2/32'],
        v6: ['fd4e:7562:6973:2a::1/64', 'fd4e:7562:6973:b0::1/64', 'fd4e:7562:6973:c1::1/64'],
      },
    ),
    [
      '-4 addr del 172.30.102.2/32 dev eth0',
      '-4 route replace 172.30.103.1 dev eth0 scope link src 172.30.103.7',
      '-4 route replace default via 172.30.103.1 dev eth0 src 172.30.103.7',
      '-6 addr del fd4e:7562:6973:c1::1/64 dev eth0',
      '-6 route replace fd4e:7562:6973:0:2::/80 dev eth0',
      '-6 route replace default via fd4e:7562:6973:0:2::1 dev eth0',
    ],
  );
});
