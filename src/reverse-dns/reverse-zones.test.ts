// Where a PTR lives: the zone of the /24 (or the RFC 2317 zone of a pool marked classless, with
// the parent's CNAMEs) and the ip6.arpa zone of the /64, from the catalog's pools.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Catalog, Region } from '../catalog/catalog.types.ts';
import { poolZones, ptrPlace } from './reverse-zones.ts';

function catalogOf(pools: Region['pools'][]): Catalog {
  const regions = new Map(pools.map((p, i) => [101 + i, { id: 101 + i, pools: p } as Region]));
  return { regions } as unknown as Catalog;
}

describe('reverse zones', () => {
  test('a pool inside a /24 the operator holds: the /24 zone, one PTR named by the last octet', () => {
    const catalog = catalogOf([{ v4: ['192.0.2.0/25'], v6: null }]);
    assert.deepEqual(
      poolZones(catalog).map((z) => z.name),
      ['2.0.192.in-addr.arpa.'],
    );
    assert.deepEqual(ptrPlace(catalog, '192.0.2.17'), {
      zone: { name: '2.0.192.in-addr.arpa.' },
      name: '17.2.0.192.in-addr.arpa.',
    });
  });

  test('a pool wider than a /24: a zone per /24', () => {
    const catalog = catalogOf([{ v4: ['198.51.100.0/23'], v6: null }]);
    assert.deepEqual(
      poolZones(catalog).map((z) => z.name),
      ['100.51.198.in-addr.arpa.', '101.51.198.in-addr.arpa.'],
    );
  });

  test('a pool marked classless: an RFC 2317 zone and a CNAME per address in the /24 zone', () => {
    const catalog = catalogOf([{ v4: ['203.0.113.64/26'], v4_classless: ['203.0.113.64/26'], v6: null }]);
    const [zone] = poolZones(catalog);
    assert.equal(zone?.name, '64-26.113.0.203.in-addr.arpa.');
    assert.equal(zone?.parent?.zone, '113.0.203.in-addr.arpa.');
    assert.equal(zone?.parent?.cnames.length, 64);
    assert.deepEqual(zone?.parent?.cnames[1], {
      name: '65.113.0.203.in-addr.arpa.',
      target: '65.64-26.113.0.203.in-addr.arpa.',
    });
    assert.equal(ptrPlace(catalog, '203.0.113.70').name, '70.64-26.113.0.203.in-addr.arpa.');
  });

  test('IPv6: the /64 block is the zone, the 32 nibbles the name', () => {
    const place = ptrPlace(catalogOf([]), '2001:db8:101:2a::1');
    assert.equal(place.zone.name, 'a.2.0.0.1.0.1.0.8.b.d.0.1.0.0.2.ip6.arpa.');
    assert.equal(place.name, `1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.${place.zone.name}`);
    assert.equal(ptrPlace(catalogOf([]), '2001:db8:101:2a::').name.split('.').length, 35);
  });
});
