// The cluster's networks without an engine: what a region's bridge is made with on a cluster, the
// VPC bridges' names and tunnels, and the cluster-wide create against a stand-in engine that
// records the calls (pending on each member, then global; resumed when a member has it already).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LxdError, type LxdClient } from './lxd-client.ts';
import {
  clusterVpcNetwork,
  createOnCluster,
  ensureClusterVpcNetwork,
  uplinkedBridgeConfig,
  vpcTunnel,
  vpcTunnelConfig,
  vpcVni,
} from './cluster-networks.ts';

test("a region's bridge on a cluster: the uplink per member, DHCP for the member's own servers", () => {
  const config = { 'ipv4.address': '172.31.201.1/24', 'ipv4.nat': 'false', 'ipv6.address': 'none' };
  const { member, global } = uplinkedBridgeConfig(config, 'eth1');
  assert.deepEqual(member, { 'bridge.external_interfaces': 'eth1' });
  assert.equal(global['ipv4.address'], '172.31.201.1/24');
  assert.equal(global['raw.dnsmasq'], 'dhcp-ignore=tag:!known');
  assert.equal(global['bridge.external_interfaces'], undefined, 'a member key is never global');
  assert.deepEqual(uplinkedBridgeConfig(config, undefined).member, {});
});

test('a VPC bridge on a cluster: a name its tunnel fits, a VNI of its own, VXLAN among members', () => {
  const uuid = '1b8f1c04-421b-4c3e-9d0a-aaaaaaaaaaaa';
  const name = clusterVpcNetwork(uuid);
  assert.equal(name, 'nv-1b8f1c0442');
  assert.ok(`${name}-${vpcTunnel}`.length <= 15, 'the tunnel interface fits Linux 15 characters');
  const vni = vpcVni(uuid, new Set());
  assert.ok(vni >= 1 && vni < 2 ** 24);
  assert.equal(vpcVni(uuid, new Set([vni])), vni + 1, 'a VNI taken by another VPC is passed over');
  const config = vpcTunnelConfig(vni);
  assert.equal(config['tunnel.v.protocol'], 'vxlan');
  assert.equal(config['tunnel.v.id'], String(vni));
  assert.equal(config['ipv4.address'], 'none', 'no host address: nothing but its servers reach it');
});

/** A stand-in engine: records each call; `defined` lists "member:path" already pending. */
function standIn(options: { defined?: string[]; networks?: { name: string; config: Record<string, string> }[] } = {}) {
  const calls: { method: string; path: string; body?: unknown }[] = [];
  const client = {
    call: async (method: string, path: string, request: { body?: unknown } = {}) => {
      calls.push({ method, path, body: request.body });
      const target = path.match(/target=([^&]+)/)?.[1];
      if (target && options.defined?.includes(decodeURIComponent(target)))
        throw new LxdError(400, 'The network already defined on member');
      return { type: 'sync', metadata: {} };
    },
    exists: async () => false,
    get: async (path: string) => (path.startsWith('/1.0/networks') ? (options.networks ?? []) : {}),
  } as unknown as LxdClient;
  return { client, calls };
}

test('created on a cluster: pending on each member with its own keys, then global', async () => {
  const { client, calls } = standIn({ defined: ['m1'] });
  await createOnCluster(
    client,
    '/1.0/networks',
    ['m1', 'm2'],
    { name: 'nubis-101', type: 'bridge', description: 'region' },
    (member) => ({ 'bridge.external_interfaces': `eth1-${member}` }),
    { 'ipv4.address': '172.31.201.1/24' },
  );
  assert.deepEqual(
    calls.map((c) => c.path),
    ['/1.0/networks?target=m1', '/1.0/networks?target=m2', '/1.0/networks'],
  );
  assert.deepEqual((calls[1]!.body as { config: unknown }).config, { 'bridge.external_interfaces': 'eth1-m2' });
  assert.deepEqual((calls[2]!.body as { config: unknown }).config, { 'ipv4.address': '172.31.201.1/24' });
});

test("a VPC network on a cluster takes a VNI no other VPC's network holds", async () => {
  const uuid = '1b8f1c04-421b-4c3e-9d0a-aaaaaaaaaaaa';
  const first = vpcVni(uuid, new Set());
  const { client, calls } = standIn({ networks: [{ name: 'nv-other', config: { 'tunnel.v.id': String(first) } }] });
  await ensureClusterVpcNetwork(client, ['m1', 'm2'], { uuid, cidr: '10.0.0.0/24' });
  const global = calls.find((c) => c.path === '/1.0/networks')!.body as {
    name: string;
    config: Record<string, string>;
  };
  assert.equal(global.name, clusterVpcNetwork(uuid));
  assert.equal(global.config['tunnel.v.id'], String(first + 1));
});
