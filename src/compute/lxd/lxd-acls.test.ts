// The blocked-port ACLs without an engine: which rules each bridge gets from its servers' addresses
// and their accounts' lists, and how a bridge's configuration takes its ACL.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatalog } from '../../catalog/catalog.ts';
import type { Region } from '../../catalog/catalog.types.ts';
import { aclName, bridgeAclConfig, bridgeAclsOf, sourcesOf, type PortPolicyServer } from './lxd-acls.ts';

const shipped = loadCatalog(null, 0).regions.get(101)!;
const region: Region = {
  ...shipped,
  pools: { v4: ['172.30.102.0/30', '172.30.103.0/24'], v6: 'fd4e:7562:6973::/48' },
  features: { ...shipped.features, ipv6: true },
};
const smtp = { TCP: [25, 465, 587], UDP: [] };

function server(ipv4: string, blocked: PortPolicyServer['blocked'], more: Partial<PortPolicyServer> = {}) {
  return { region, ipv4, ipv6: null, floating: [], blocked, ...more };
}

test('a server is matched by its IPv4 /32, its IPv6 /64 and its floating addresses', () => {
  assert.deepEqual(
    sourcesOf({
      ipv4: '172.30.103.7',
      ipv6: 'fd4e:7562:6973:2a::',
      floating: ['172.30.102.2', 'fd4e:7562:6973:b0::1'],
    }),
    ['172.30.102.2/32', '172.30.103.7/32', 'fd4e:7562:6973:2a::/64', 'fd4e:7562:6973:b0::/64'],
  );
});

/** The servers as the egress policy gives them: a page at a time. */
async function* pages(...given: PortPolicyServer[][]): AsyncGenerator<PortPolicyServer[]> {
  yield* given;
}

/** Each bridge's ACL of servers given in one page. */
const bridgeAcls = (regions: Region[], servers: PortPolicyServer[]) => bridgeAclsOf(regions, pages(servers));

test('every bridge gets an ACL; servers with the same blocked ports share a rule per protocol', async () => {
  const acls = await bridgeAcls(
    [region],
    [
      server('172.30.103.7', smtp),
      server('172.30.103.8', { TCP: [587, 25, 465], UDP: [] }),
      server('172.30.103.9', { TCP: [25], UDP: [53, 5353] }),
      server('172.30.103.10', { TCP: [], UDP: [] }),
      server('172.30.102.2', smtp, { ipv6: 'fd4e:7562:6973:2a::' }),
    ],
  );
  assert.deepEqual(
    acls.map((acl) => acl.name),
    ['nubis-101-ports', 'nubis-101p2-ports'],
  );
  assert.equal(aclName('nubis-101'), 'nubis-101-ports');
  assert.deepEqual(
    acls[0]!.egress.map((rule) => [rule.protocol, rule.destination_port, rule.source, rule.action]),
    [['tcp', '25,465,587', '172.30.102.2/32,fd4e:7562:6973:2a::/64', 'drop']],
  );
  assert.deepEqual(
    acls[1]!.egress.map((rule) => [rule.protocol, rule.destination_port, rule.source]),
    [
      ['tcp', '25', '172.30.103.9/32'],
      ['tcp', '25,465,587', '172.30.103.7/32,172.30.103.8/32'],
      ['udp', '53,5353', '172.30.103.9/32'],
    ],
  );
});

test('servers with the same blocked ports share one rule across the pages they come in', async () => {
  const acls = await bridgeAclsOf(
    [region],
    pages([server('172.30.103.7', smtp)], [], [server('172.30.103.8', { TCP: [587, 25, 465], UDP: [] })]),
  );
  assert.deepEqual(
    acls[1]!.egress.map((rule) => [rule.protocol, rule.destination_port, rule.source]),
    [['tcp', '25,465,587', '172.30.103.7/32,172.30.103.8/32']],
  );
});

test('a bridge with nothing blocked keeps an ACL without rules, so a lifted block leaves none behind', async () => {
  const acls = await bridgeAcls([region], [server('172.30.103.7', { TCP: [], UDP: [] })]);
  assert.deepEqual(
    acls.map((acl) => acl.egress.length),
    [0, 0],
  );
});

test("a bridge's configuration takes its ACL beside the others, and allows what no rule drops", async () => {
  const acl = (await bridgeAcls([region], []))[0]!;
  assert.deepEqual(bridgeAclConfig(acl, { 'ipv4.address': '172.30.102.1/30', 'security.acls': 'mine' }), {
    'ipv4.address': '172.30.102.1/30',
    'security.acls': 'mine,nubis-101-ports',
    'security.acls.default.egress.action': 'allow',
    'security.acls.default.ingress.action': 'allow',
  });
  assert.equal(bridgeAclConfig(acl, { 'security.acls': 'nubis-101-ports' })['security.acls'], 'nubis-101-ports');
});
