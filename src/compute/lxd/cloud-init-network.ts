// The network config cloud-init reads from the engine (`cloud-init.network-config`), for images
// that configure their network only through cloud-init: the same addresses and gateways the
// Nubis network script sets (lxd-driver.ts), in cloud-init's version 1 format.
//
// Version 1 with the gateways on `static` subnets, and no `routes`: Debian 12's cloud-init (22.4)
// renders it for ifupdown (ENI), whose static method adds the default route `onlink`, so a gateway
// outside the address's prefix (the IPv4 pool's .1 for a /32; the bridge's IPv6 gateway, in block
// 0, for a /64 of another block) is reached on the link. Its ENI renderer writes `routes` as
// `route add` lines (net-tools, absent from minimal images) and fails on a route without a gateway,
// so an on-link route of its own is not something version 1 can say there.

import type { MachineSpec } from '../compute-driver.ts';
import { bridgeOf, ipv6FirstHost } from './lxd-networks.ts';

/** A subnet of cloud-init's version 1 network config. */
export interface CloudInitSubnet {
  type: 'static' | 'static6' | 'manual';
  address?: string;
  gateway?: string;
  dns_nameservers?: string[];
}

export interface CloudInitNetworkConfig {
  version: 1;
  config: { type: 'physical'; name: string; subnets: CloudInitSubnet[] }[];
}

/**
 * eth0: the server's IPv4 and floating IPv4s as /32s, the first with the pool's gateway (.1) and
 * the bridge's DNS (LXD's dnsmasq on that gateway); its IPv6 /64 and floating /64s on their first
 * hosts (::1), the first with the bridge's IPv6 gateway (the one the API shows). eth1...: the VPC
 * addresses, with their VPC's prefix and no gateway.
 */
export function cloudInitNetwork(
  spec: Pick<MachineSpec, 'region' | 'ipv4' | 'ipv6' | 'floating' | 'vpcs'>,
): CloudInitNetworkConfig {
  const bridge = bridgeOf(spec.region, spec.ipv4);
  const gateway4 = bridge?.config['ipv4.address']?.split('/')[0];
  const v4 = [...(spec.ipv4 ? [spec.ipv4] : []), ...spec.floating.filter((a) => !a.includes(':'))];
  // The server's own /64 comes as its block (2001:db8:1:2a::), shown by the API as its ::1.
  const v6 = [...(spec.ipv6 ? [spec.ipv6] : []), ...spec.floating.filter((a) => a.includes(':'))];
  const subnets: CloudInitSubnet[] = [
    ...v4.map((address, index) => ({
      type: 'static' as const,
      address: `${address}/32`,
      ...(index === 0 && gateway4 ? { gateway: gateway4, dns_nameservers: [gateway4] } : {}),
    })),
    ...v6.map((address, index) => ({
      type: 'static6' as const,
      address: `${ipv6FirstHost(address)}/64`,
      ...(index === 0 && bridge?.ipv6 ? { gateway: bridge.ipv6.gateway } : {}),
    })),
  ];
  return {
    version: 1,
    config: [
      { type: 'physical', name: 'eth0', subnets: subnets.length ? subnets : [{ type: 'manual' }] },
      ...spec.vpcs.map((vpc, index) => ({
        type: 'physical' as const,
        name: `eth${index + 1}`,
        subnets: [{ type: 'static' as const, address: `${vpc.address}/${vpc.cidr.split('/')[1]}` }],
      })),
    ],
  };
}

/** The config as the engine's `cloud-init.network-config` holds it (JSON is YAML). */
export function cloudInitNetworkConfig(
  spec: Pick<MachineSpec, 'region' | 'ipv4' | 'ipv6' | 'floating' | 'vpcs'>,
): string {
  return `${JSON.stringify(cloudInitNetwork(spec), null, 2)}\n`;
}
