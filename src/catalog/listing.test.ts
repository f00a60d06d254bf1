// Black-box tests of the public listings (regions, images, and the plan list extension) in
// the spec's wrapper shapes, their region_id filter, and a catalog replaced by CATALOG_FILE.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type JsonBody, startTestInstance, type TestInstance } from '../../test/support/instance.ts';

const timestamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const continents = ['africa', 'asia', 'australia', 'europe', 'middle-east', 'north-america', 'south-america'];
const featureNames = [
  'backups',
  'block_storage',
  'custom_iso',
  'ddos_protection',
  'floating_ip',
  'instances',
  'ipv6',
  'object_storage',
  'ping_ip',
  'private_networking',
  'smtp',
  'virtual_private_cloud',
];

let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance();
});
after(async () => {
  await nubis.close();
});

describe('region list', () => {
  test('answers without a token: regions keyed by id, meta with counts per continent, total, cached, timestamp', async () => {
    const result = await nubis.request('GET', '/v1.3/region/list');
    assert.equal(result.status, 200);
    const { regions, meta } = result.body;
    assert.deepEqual(Object.keys(result.body).sort(), ['meta', 'regions']);
    assert.deepEqual(Object.keys(meta).sort(), ['cached', 'count', 'timestamp', 'total']);
    assert.equal(meta.total, Object.keys(regions).length);
    assert.ok(meta.total >= 8);
    assert.equal(meta.cached, true);
    assert.match(meta.timestamp, timestamp);
    assert.deepEqual(Object.keys(meta.count.public).sort(), continents);
    assert.deepEqual(Object.keys(meta.count.private).sort(), continents);
    const counted = [...Object.values(meta.count.public), ...Object.values(meta.count.private)].reduce(
      (sum: number, n) => sum + (n as number),
      0,
    );
    assert.equal(counted, meta.total);

    for (const [id, region] of Object.entries(regions as Record<string, Record<string, JsonBody>>)) {
      assert.match(id, /^\d{3,4}$/);
      const dc = Number(id) % 100;
      assert.ok(dc >= 1 && dc <= 99, `${id}: data-centre id 1-99`);
      assert.deepEqual(Object.keys(region).sort(), [
        'city',
        'continent',
        'country',
        'features',
        'generation',
        'is_public',
        'latitude',
        'longitude',
        'operator_id',
        'state',
        'uuid',
      ]);
      assert.equal(region.generation, Math.floor(Number(id) / 100));
      assert.match(region.country, /^[A-Z]{2}$/);
      assert.ok(continents.includes(region.continent));
      assert.ok(Math.abs(region.latitude) <= 90 && Math.abs(region.longitude) <= 180);
      assert.deepEqual(Object.keys(region.features).sort(), featureNames);
      for (const name of featureNames)
        assert.equal(typeof region.features[name], name === 'ping_ip' ? 'string' : 'boolean');
      assert.equal(typeof region.is_public, 'boolean');
    }
    // The regions other issues rely on.
    assert.equal(regions['101'].city, 'New York');
    assert.ok(Object.values(regions['101'].features).every((value) => value !== false));
    assert.equal(regions['201'].city, 'Frankfurt');
    // Several continents, and the features differ between regions.
    assert.ok(
      new Set(Object.values(regions as Record<string, { continent: string }>).map((r) => r.continent)).size >= 4,
    );
    assert.ok(
      Object.values(regions as Record<string, { features: { floating_ip: boolean } }>).some(
        (r) => !r.features.floating_ip,
      ),
    );
  });
});

describe('image list', () => {
  test('keys images by id with every field; a Windows image carries an hourly licence cost', async () => {
    const result = await nubis.request('GET', '/v1.3/image/list');
    assert.equal(result.status, 200);
    const { images, meta } = result.body;
    assert.deepEqual(Object.keys(meta).sort(), ['cached', 'timestamp', 'total']);
    assert.equal(meta.total, Object.keys(images).length);
    const regions = Object.keys((await nubis.request('GET', '/v1.3/region/list')).body.regions).map(Number);
    for (const image of Object.values(images as Record<string, Record<string, JsonBody>>)) {
      assert.deepEqual(Object.keys(image).sort(), [
        'generation',
        'hourly_cost',
        'min_disk_gb',
        'name',
        'os_distro',
        'os_type',
        'regions',
        'type',
        'uuid',
      ]);
      assert.ok(['os', 'app'].includes(image.type));
      assert.ok(['linux', 'freebsd', 'windows'].includes(image.os_type));
      assert.ok(image.regions.every((id: number) => regions.includes(id)));
      assert.equal(typeof image.hourly_cost, 'number');
      assert.equal(image.hourly_cost > 0, image.os_type === 'windows', image.name);
    }
    const all = Object.values(images as Record<string, { os_type: string; type: string; os_distro: string }>);
    assert.ok(all.some((image) => image.os_type === 'freebsd'));
    assert.ok(all.some((image) => image.type === 'app'));
    assert.ok(new Set(all.map((image) => image.os_distro)).size >= 5);
    assert.equal(images['1001'].name, 'Ubuntu 24.04 LTS');
  });

  test('region_id keeps only the images offered there', async () => {
    const all = (await nubis.request('GET', '/v1.3/image/list')).body.images as Record<string, { regions: number[] }>;
    const result = await nubis.request('GET', '/v1.3/image/list?region_id=601');
    assert.equal(result.status, 200);
    const expected = Object.keys(all)
      .filter((id) => all[id]!.regions.includes(601))
      .sort();
    assert.ok(expected.length > 0 && expected.length < Object.keys(all).length);
    assert.deepEqual(Object.keys(result.body.images).sort(), expected);
    assert.equal(result.body.meta.total, expected.length);
    const none = await nubis.request('GET', '/v1.3/image/list?region_id=9999');
    assert.deepEqual(none.body.images, {});
    assert.equal(none.body.meta.total, 0);
  });
});

describe('plan list (extension)', () => {
  test('keys plans by id with size and price; region_id keeps the plans sold there', async () => {
    const result = await nubis.request('GET', '/v1.3/plan/list');
    assert.equal(result.status, 200);
    const { plans, meta } = result.body;
    assert.equal(meta.total, Object.keys(plans).length);
    assert.ok(meta.total >= 6);
    for (const plan of Object.values(plans as Record<string, Record<string, JsonBody>>)) {
      assert.deepEqual(Object.keys(plan).sort(), [
        'bandwidth_gb',
        'disk_gb',
        'memory_mb',
        'name',
        'plan_type',
        'price_hourly',
        'price_monthly',
        'regions',
        'uuid',
        'vcpus',
      ]);
      assert.ok(plan.price_monthly > 0 && plan.price_hourly > 0 && plan.price_hourly < plan.price_monthly);
      assert.ok(plan.regions.length > 0);
    }
    assert.deepEqual(
      {
        name: plans['1'].name,
        vcpus: plans['1'].vcpus,
        memory_mb: plans['1'].memory_mb,
        price_monthly: plans['1'].price_monthly,
      },
      { name: 's-1vcpu-1gb', vcpus: 1, memory_mb: 1024, price_monthly: 5 },
    );

    const inLondon = await nubis.request('GET', '/v1.3/plan/list?region_id=301');
    const expected = Object.keys(plans)
      .filter((id) => plans[id].regions.includes(301))
      .sort();
    assert.ok(expected.length < Object.keys(plans).length);
    assert.deepEqual(Object.keys(inLondon.body.plans).sort(), expected);
  });
});

describe('CATALOG_FILE', () => {
  test('replaces the shipped catalog', async () => {
    const shipped = JSON.parse(readFileSync(new URL('./catalog.json', import.meta.url), 'utf8'));
    const own = {
      regions: [shipped.regions[0]],
      images: [{ ...shipped.images[0], regions: [101] }],
      plans: [shipped.plans[0]],
    };
    const file = join(mkdtempSync(join(tmpdir(), 'nubis-catalog-')), 'catalog.json');
    writeFileSync(file, JSON.stringify(own));
    const custom = await startTestInstance({ CATALOG_FILE: file });
    try {
      assert.deepEqual(Object.keys((await custom.request('GET', '/v1.3/region/list')).body.regions), ['101']);
      assert.deepEqual(Object.keys((await custom.request('GET', '/v1.3/image/list')).body.images), ['1001']);
      assert.deepEqual(Object.keys((await custom.request('GET', '/v1.3/plan/list')).body.plans), ['1']);
    } finally {
      await custom.close();
    }
  });

  test('a bad file stops start-up with an error naming CATALOG_FILE and the bad entry', async () => {
    const shipped = JSON.parse(readFileSync(new URL('./catalog.json', import.meta.url), 'utf8'));
    shipped.images[0].regions.push(4242);
    const file = join(mkdtempSync(join(tmpdir(), 'nubis-catalog-')), 'catalog.json');
    writeFileSync(file, JSON.stringify(shipped));
    await assert.rejects(startTestInstance({ CATALOG_FILE: file }), (error: Error) => {
      assert.equal(error.name, 'CatalogError');
      assert.equal(
        error.message,
        `CATALOG_FILE ${file} is not a valid catalog: images[0].regions[10]: unknown region 4242`,
      );
      return true;
    });
  });
});
