// The IPv6 gateway the API shows (network/ip-pool.ts) is the one the LXD driver's bridge holds and
// its guests route through: one arithmetic read two ways, checked for every pool of every shipped
// region. It lives beside the driver, which may import the pools (the reverse is not allowed).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCatalog } from '../../catalog/catalog.ts';
import { intToIpv4, ipv4ToInt, ipv6Gateway } from '../../network/ip-pool.ts';
import { regionBridges } from './lxd-networks.ts';

test("a server's IPv6 gateway is its bridge's IPv6 address, for every pool of every region", () => {
  const regions = [...loadCatalog(null, 0).regions.values()];
  // One region with two pools, so the second bridge counts too.
  const two = { ...regions[0]!, pools: { v4: ['192.0.2.0/25', '203.0.113.0/24'], v6: '2001:db8:9::/48' } };
  let checked = 0;
  for (const region of [...regions, two]) {
    const bridges = regionBridges(region);
    region.pools.v4.forEach((pool, index) => {
      const host = intToIpv4(ipv4ToInt(pool.split('/')[0]!) + 5);
      assert.equal(ipv6Gateway(region, host), bridges[index]?.ipv6?.gateway ?? null, `${region.id} ${pool}`);
      checked++;
    });
  }
  assert.ok(checked > regions.length);
  assert.equal(ipv6Gateway(two, '203.0.113.9'), '2001:db8:9:0:2::1');
});
