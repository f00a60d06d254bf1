// The network config cloud-init gets from the engine, without an engine: addresses, gateways and
// DNS of each NIC as the Nubis network script sets them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatalog } from '../../catalog/catalog.ts';
import type { Region } from '../../catalog/catalog.types.ts';
import { cloudInitNetwork, cloudInitNetworkConfig } from './cloud-init-network.ts';
import type { MachineSpec } from '../compute-driver.ts';
import { userData } from './lxd-driver.ts';

const shipped = loadCatalog(null, 0).regions.get(101)!;
const region: Region = {
  ...shipped,
  pools: { v4: ['172.30.102.0/30', '172.30.103.0/24'], v6: 'fd4e:7562:6973::/48' },
  features: { ...shipped.features, ipv6: true },
};
const bare = { region, ipv4: '172.30.103.7', ipv6: null, floating: [], vpcs: [] };

test("eth0 holds the server's addresses as /32s and /64 first hosts, with its bridge's gateways and DNS", () => {
  const config = cloudInitNetwork({
    ...bare,
    ipv6: 'fd4e:7562:6973:2a::',
    floating: ['172.30.102.2', 'fd4e:7562:6973:b0::'],
  });
  assert.equal(config.version, 1);
  assert.deepEqual(config.config, [
    {
      type: 'physical',
      name: 'eth0',
      subnets: [
        // The pool of the server's own address is the second one: its bridge is nubis-101p2.
        { type: 'static', address: '172.30.103.7/32', gateway: '172.30.103.1', dns_nameservers: ['172.30.103.1'] },
        { type: 'static', address: '172.30.102.2/32' },
        // The gateway the API shows in iface.v6: the bridge's address in block 0.
        { type: 'static6', address: 'fd4e:7562:6973:2a::1/64', gateway: 'fd4e:7562:6973:0:2::1' },
        { type: 'static6', address: 'fd4e:7562:6973:b0::1/64' },
      ],
    },
  ]);
});

test('each VPC is a NIC of its own with its address in the VPC prefix and no gateway', () => {
  const config = cloudInitNetwork({
    ...bare,
    vpcs: [
      { uuid: 'a', cidr: '10.8.0.0/16', address: '10.8.0.5' },
      { uuid: 'b', cidr: '192.168.4.0/24', address: '192.168.4.2' },
    ],
  });
  assert.deepEqual(config.config.slice(1), [
    { type: 'physical', name: 'eth1', subnets: [{ type: 'static', address: '10.8.0.5/16' }] },
    { type: 'physical', name: 'eth2', subnets: [{ type: 'static', address: '192.168.4.2/24' }] },
  ]);
});

test('a region without IPv6 gives IPv4 only; a server without addresses leaves eth0 unconfigured', () => {
  const v4only = { ...region, features: { ...region.features, ipv6: false } };
  const config = cloudInitNetwork({ ...bare, region: v4only, ipv4: '172.30.102.2' });
  assert.deepEqual(config.config[0]!.subnets, [
    { type: 'static', address: '172.30.102.2/32', gateway: '172.30.102.1', dns_nameservers: ['172.30.102.1'] },
  ]);
  assert.deepEqual(cloudInitNetwork({ ...bare, ipv4: null }).config[0]!.subnets, [{ type: 'manual' }]);
});

test('the engine holds it as text cloud-init reads as YAML (JSON), the same for the same spec', () => {
  const text = cloudInitNetworkConfig(bare);
  assert.deepEqual(JSON.parse(text), cloudInitNetwork(bare));
  assert.equal(text, cloudInitNetworkConfig({ ...bare }));
});

test('the user data asks cloud-init to apply the network config at every boot, not only the first', () => {
  const spec = {
    hostname: 'a.example.com',
    rootPassword: () => 'pw',
    sshPublicKey: null,
    scriptUrl: null,
  } as MachineSpec;
  assert.match(userData(spec), /^updates:\n {2}network:\n {4}when: \[boot-new-instance, boot\]$/m);
  // The root password, unsealed when the user data is written (a spec carries it sealed).
  assert.match(userData(spec), /- \{name: root, password: "pw", type: text\}/);
});
