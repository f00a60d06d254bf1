// The catalog check on its own: the shipped catalog passes; each rule catches its mistake
// with a message naming the entry; the schema check agrees with TypeBox's checker.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { Errors } from 'typebox/schema';
import { catalogForEngine, checkCatalog, loadCatalog } from './catalog.ts';
import { CatalogFileSchema } from './catalog.types.ts';
import { schemaErrors } from './schema-check.ts';

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

test("the schema check reports what TypeBox's checker reports, on generated bad catalogs", () => {
  // Every value of the shipped catalog, by path, to change, remove or add beside.
  const paths: (string | number)[][] = [];
  const walk = (value: unknown, path: (string | number)[]) => {
    paths.push(path);
    if (Array.isArray(value)) for (const [i, item] of value.entries()) walk(item, [...path, i]);
    else if (value && typeof value === 'object')
      for (const [key, item] of Object.entries(value)) walk(item, [...path, key]);
  };
  walk(shipped(), []);
  const mutation = fc.record({
    at: fc.nat({ max: paths.length - 1 }),
    how: fc.constantFrom('replace', 'remove', 'add'),
    // Values of every JSON type, and strings near the schema's patterns and lengths.
    value: fc.oneof(
      fc.jsonValue(),
      fc.string({ maxLength: 60 }),
      fc.integer({ min: -200, max: 20000 }),
      fc.constant(''),
    ),
  });
  fc.assert(
    fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (mutations) => {
      const catalog = shipped();
      for (const { at, how, value } of mutations) {
        const path = paths[at]!;
        if (path.length === 0) continue;
        let parent = catalog;
        for (const key of path.slice(0, -1)) parent = parent?.[key];
        if (!parent || typeof parent !== 'object') continue;
        const last = path[path.length - 1]!;
        if (how === 'replace') parent[last] = value;
        else if (how === 'remove') Array.isArray(parent) ? parent.splice(Number(last), 1) : delete parent[last];
        else if (!Array.isArray(parent)) parent[`extra_${String(last)}`] = value;
      }
      const typebox = Errors(CatalogFileSchema, catalog)[1].map(({ keyword, instancePath, message }) => ({
        keyword,
        instancePath,
        message,
      }));
      const ours = schemaErrors(CatalogFileSchema, catalog).map(({ keyword, instancePath, message }) => ({
        keyword,
        instancePath,
        message,
      }));
      assert.deepEqual(ours, typebox);
    }),
    { numRuns: 500 },
  );
});

test('on the real engine an image is offered only where it boots what it says; the simulated driver keeps all', () => {
  const shipped = loadCatalog(null, 0);
  const lxd = catalogForEngine(shipped, 'lxd');
  const offered = (id: number) => lxd.images.get(id)!.regions.length > 0;
  // Linux images boot the default engine image; Windows and FreeBSD name none of their own.
  assert.deepEqual([1001, 1011, 2001, 1041, 1101, 1102].map(offered), [true, true, true, false, false, false]);
  assert.equal(catalogForEngine(shipped, 'simulated'), shipped);
  // An operator who has a Windows engine image (a VM image) names it, and the image is offered.
  const windows = { ...shipped.images.get(1101)!, engine: { image: 'windows-2022' } };
  const named = catalogForEngine({ ...shipped, images: new Map([[1101, windows]]) }, 'lxd');
  assert.deepEqual(named.images.get(1101)!.regions, windows.regions);
});
