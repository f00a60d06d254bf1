// What isolates a server on LXD, as engine config: the NIC filters with the IPv6 address pinned in
// the bridge's /80, the VPC NIC's pinned address, and the per-plan limits.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCatalog } from '../../catalog/catalog.ts';
import type { Region } from '../../catalog/catalog.types.ts';
import {
  isolationConfig,
  oneAtATime,
  pinnedIpv6,
  processLimit,
  publicNicSecurity,
  rootDiskLimits,
  vpcNicSecurity,
} from './lxd-isolation.ts';
import { bridgeOf } from './lxd-networks.ts';

const shipped = loadCatalog(null, 0).regions.get(101)!;
const withV6: Region = {
  ...shipped,
  pools: { v4: ['172.30.102.0/30', '172.30.103.0/24'], v6: 'fd4e:7562:6973::/48' },
  features: { ...shipped.features, ipv6: true },
};
const withoutV6: Region = { ...withV6, features: { ...withV6.features, ipv6: false } };

test('a public NIC filters MAC, IPv4 and IPv6, is isolated on its bridge, and pins an IPv6 of its /80', () => {
  const nic = publicNicSecurity(bridgeOf(withV6, '172.30.103.77'), '172.30.103.77');
  assert.deepEqual(nic, {
    'security.mac_filtering': 'true',
    'security.ipv4_filtering': 'true',
    'security.ipv6_filtering': 'true',
    'security.port_isolation': 'true',
    // The server's IPv4 as the last 32 bits of bridge 2's /80 (fd4e:7562:6973:0:2::/80).
    'ipv6.address': 'fd4e:7562:6973:0:2:0:ac1e:674d',
  });
  // Two servers of one bridge never share the pinned address.
  assert.notEqual(pinnedIpv6(bridgeOf(withV6, '172.30.103.78'), '172.30.103.78')['ipv6.address'], nic['ipv6.address']);
  // Without IPv6 on the bridge, nothing to pin: the filter then drops every IPv6 packet.
  assert.deepEqual(pinnedIpv6(bridgeOf(withoutV6, '172.30.103.77'), '172.30.103.77'), {});
  assert.deepEqual(pinnedIpv6(bridgeOf(withV6, null), null), {});
});

test('a VPC NIC sends only from its pinned private address, with its own MAC', () => {
  assert.deepEqual(vpcNicSecurity('10.0.0.5'), {
    'ipv4.address': '10.0.0.5',
    'security.mac_filtering': 'true',
    'security.ipv4_filtering': 'true',
    'security.ipv6_filtering': 'true',
  });
});

test('the process limit and the disk I/O ceiling follow the plan; every server has its own id map', () => {
  assert.equal(processLimit({ memoryMb: 1024 }), 1024);
  assert.equal(processLimit({ memoryMb: 8192 }), 4096);
  assert.deepEqual(isolationConfig({ memoryMb: 4096 }), {
    'limits.processes': '2048',
    'security.idmap.isolated': 'true',
  });
  assert.deepEqual(rootDiskLimits({ vcpus: 2 }), { 'limits.read': '200MB', 'limits.write': '100MB' });
});

test('containers are made one at a time, and a failed one does not hold up the next', async () => {
  const making = oneAtATime();
  const order: string[] = [];
  const step =
    (name: string, fail = false) =>
    async () => {
      order.push(`${name} starts`);
      await new Promise((resolve) => setImmediate(resolve));
      order.push(`${name} ends`);
      if (fail) throw new Error(`${name} failed`);
      return name;
    };
  const results = await Promise.allSettled([making(step('a')), making(step('b', true)), making(step('c'))]);
  assert.deepEqual(order, ['a starts', 'a ends', 'b starts', 'b ends', 'c starts', 'c ends']);
  assert.deepEqual(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
});
