// The catalog check on its own: the shipped catalog passes; each rule catches its mistake
// with a message naming the entry.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkCatalog, loadCatalog } from './catalog.ts';

const shipped = () => JSON.parse(readFileSync(new URL('./catalog.json', import.meta.url), 'utf8'));

test('the shipped catalog is valid, with regions on several continents and IPv4 pools only from the documentation ranges', () => {
  assert.deepEqual(checkCatalog(shipped()), []);
  const catalog = loadCatalog(null, 0);
  assert.ok(catalog.regions.size >= 8);
  for (const region of catalog.regions.values()) {
    for (const cidr of region.pools.v4)
      assert.match(cidr, /^(192\.0\.2|198\.51\.100|203\.0\.113)\.\d+\/(2[4-9]|30)$/, `${region.id} ${cidr}`);
    assert.equal(region.pools.v6, `2001:db8:${region.id}::/48`);
  }
  assert.equal(catalog.regions.get(101)!.removal_hold_hours, 0);
  assert.equal(catalog.regions.get(201)!.removal_hold_hours, 24);
  assert.equal(catalog.images.get(1101)!.hourly_cost_micros, 22_000);
  assert.equal(catalog.plans.get(2)!.price_monthly_micros, 24_000_000);
});

test('schema problems name the path', () => {
  const bad = shipped();
  bad.regions[0].features.smtp = 'yes';
  delete bad.regions[2].city;
  bad.plans[1].price_monthly = 24;
  bad.regions[3].typo = true;
  assert.deepEqual(checkCatalog(bad), [
    'regions[0].features.smtp: must be boolean',
    'regions[2]: must have required properties city',
    'regions[3]: must not have additional properties (typo)',
    'plans[1].price_monthly: must be string',
  ]);
});

test('rules beyond the schema: unique ids, known regions, data-centre ids, pools that do not overlap', () => {
  const bad = shipped();
  bad.plans.push({ ...bad.plans[0] });
  bad.images[1].regions.push(999);
  bad.regions[1].pools.v4 = ['192.0.2.64/26'];
  bad.regions[2].pools.v4 = ['203.0.113.5/26'];
  bad.regions[3].pools.v6 = bad.regions[0].pools.v6;
  bad.regions[4].id = 300;
  const problems = checkCatalog(bad);
  const planIndex = bad.plans.length - 1;
  for (const expected of [
    `plans[${planIndex}].id: 1 is used twice`,
    `images[1].regions[${bad.images[1].regions.length - 1}]: unknown region 999`,
    'regions[1].pools.v4[0]: 192.0.2.64/26 overlaps regions[0].pools.v4[0]',
    'regions[2].pools.v4[0]: 203.0.113.5/26 has host bits set; write its network address',
    'regions[3].pools.v6: 2001:db8:101::/48 is also the pool of regions[0]',
    'regions[4].id: 300 must end in a data-centre id 01-99',
  ])
    assert.ok(problems.includes(expected), `${expected}\nin ${problems.join('\n')}`);
});
