// Black-box tests of the legacy public listings: locations, and the templates and plans of one
// location, mapped from the same catalog as /v1.3/region/list, image/list and plan/list.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { type JsonBody, startTestInstance, type TestInstance } from '../../../test/support/instance.ts';
import { createAccount } from '../../../test/support/accounts.ts';

let nubis: TestInstance;

before(async () => {
  nubis = await startTestInstance();
});
after(async () => {
  await nubis.close();
});

const get = async (path: string) => {
  const result = await nubis.request('GET', path);
  assert.equal(result.status, 200, `${path}: ${JSON.stringify(result.body)}`);
  return result.body;
};

describe('locations/list', () => {
  test('every v1.3 region, keyed by its id (the DCID), without a key', async () => {
    const [locations, { regions }] = await Promise.all([get('/v1/locations/list'), get('/v1.3/region/list')]);
    assert.deepEqual(Object.keys(locations), Object.keys(regions));
    for (const [id, location] of Object.entries<JsonBody>(locations)) {
      const region = regions[id];
      assert.deepEqual(Object.keys(location).sort(), [
        'city',
        'country',
        'features',
        'id',
        'latitude',
        'longitude',
        'operator_id',
        'slug',
      ]);
      assert.equal(location.id, Number(id));
      assert.equal(location.city, region.city);
      assert.equal(location.country, region.country);
      assert.equal(location.latitude, region.latitude);
      assert.equal(location.longitude, region.longitude);
      assert.equal(location.operator_id, region.operator_id ?? '');
      assert.deepEqual(location.features, {
        ddos_protection: region.features.ddos_protection,
        block_storage: region.features.block_storage,
        private_networking: region.features.private_networking,
        ipv6: region.features.ipv6,
        backups: region.features.backups,
      });
    }
    assert.equal(locations['101'].slug, 'nyc');
    assert.equal(locations['601'].features.private_networking, false);
  });
});

describe('templates/list/{DCID}', () => {
  // The legacy document: "Template … os_type (linux, windows)". Images of another os_type (FreeBSD) are kept
  // out of the legacy listing (docs/decisions.md).
  test('the v1.3 images of that location, in the legacy field names; os_type only linux or windows', async () => {
    let hidden = 0;
    for (const dcid of [101, 301, 601, 701]) {
      const [templates, { images }] = await Promise.all([
        get(`/v1/templates/list/${dcid}`),
        get(`/v1.3/image/list?region_id=${dcid}`),
      ]);
      const legacyKinds = Object.keys(images).filter((id) => ['linux', 'windows'].includes(images[id].os_type));
      hidden += Object.keys(images).length - legacyKinds.length;
      assert.deepEqual(Object.keys(templates), legacyKinds);
      for (const template of Object.values<JsonBody>(templates))
        assert.ok(['linux', 'windows'].includes(template.os_type));
      for (const [id, template] of Object.entries<JsonBody>(templates)) {
        assert.deepEqual(Object.keys(template).sort(), [
          'hourly_cost',
          'id',
          'min_disk',
          'min_memory',
          'name',
          'onapp_os_distro',
          'os_distro',
          'os_type',
        ]);
        assert.equal(template.id, Number(id));
        assert.equal(template.name, images[id].name);
        assert.equal(template.os_type, images[id].os_type);
        assert.equal(template.os_distro, images[id].os_distro);
        assert.equal(template.min_disk, images[id].min_disk_gb);
        assert.equal(template.hourly_cost, images[id].hourly_cost);
      }
    }
    const windows = (await get('/v1/templates/list/101'))['1101'];
    assert.deepEqual(windows, {
      id: 1101,
      name: 'Windows Server 2022 Standard',
      os_type: 'windows',
      os_distro: 'windows',
      onapp_os_distro: 'windows',
      min_memory: 2048,
      min_disk: 40,
      hourly_cost: 0.022,
    });
    assert.equal((await get('/v1/templates/list/101'))['1021'].onapp_os_distro, 'rhel');
    assert.equal((await get('/v1/templates/list/601'))['1101'], undefined, 'not offered in 601');
    assert.ok(hidden > 0, 'the catalog offers FreeBSD somewhere, and the legacy listing leaves it out');
  });
});

describe('plans/list/{DCID}', () => {
  test('the v1.3 plans sold in that location: cpu, ram, disk and bandwidth as numeric strings', async () => {
    for (const dcid of [101, 103, 601]) {
      const [plans, v13] = await Promise.all([get(`/v1/plans/list/${dcid}`), get(`/v1.3/plan/list?region_id=${dcid}`)]);
      assert.deepEqual(Object.keys(plans), Object.keys(v13.plans));
      for (const [id, plan] of Object.entries<JsonBody>(plans)) {
        const current = v13.plans[id];
        assert.deepEqual(Object.keys(plan).sort(), [
          'bandwidth',
          'cpu',
          'disk',
          'id',
          'name',
          'plan_type',
          'price_per_hour',
          'ram',
          'windows',
        ]);
        assert.equal(plan.id, Number(id));
        assert.equal(plan.name, current.name);
        assert.equal(plan.cpu, String(current.vcpus));
        assert.equal(plan.ram, String(current.memory_mb));
        assert.equal(plan.disk, String(current.disk_gb));
        assert.equal(Number(plan.bandwidth) * 1000, current.bandwidth_gb);
        assert.equal(plan.price_per_hour, current.price_hourly);
        assert.equal(plan.plan_type, current.plan_type.toUpperCase());
      }
    }
    const nyc = await get('/v1/plans/list/101');
    assert.deepEqual(nyc['1'], {
      id: 1,
      name: 's-1vcpu-1gb',
      plan_type: 'SSD',
      windows: false,
      cpu: '1',
      ram: '1024',
      disk: '25',
      bandwidth: '1',
      price_per_hour: 0.00685,
    });
    assert.equal(nyc['3'].windows, true, '50 GB holds Windows Server (40 GB)');
    assert.equal(nyc['9'].plan_type, 'DEDICATED');
    assert.equal((await get('/v1/plans/list/103'))['9'], undefined, 'not sold in 103');
    // No Windows template is offered in 601, so no plan there runs it.
    assert.ok(Object.values<JsonBody>(await get('/v1/plans/list/601')).every((plan) => plan.windows === false));
  });
});

describe('listing refusals', () => {
  test('an unknown DCID is a 404 envelope, a malformed one a 400 naming DCID', async () => {
    for (const kind of ['templates', 'plans']) {
      const unknown = await nubis.request('GET', `/v1/${kind}/list/999`);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.response_type, 'error');
      assert.equal(unknown.body.response_code, 404);
      assert.match(unknown.body.message, /location not found/);
      const malformed = await nubis.request('GET', `/v1/${kind}/list/nyc`);
      assert.equal(malformed.status, 400);
      assert.deepEqual(
        malformed.body.fields.map((f: { field: string }) => f.field),
        ['DCID'],
      );
    }
  });

  test('a key is not needed but does no harm', async () => {
    const account = await createAccount(nubis);
    assert.equal((await nubis.request('GET', '/v1/locations/list', { token: account.token })).status, 200);
    assert.equal(
      (await nubis.request('GET', '/v1/plans/list/101', { headers: { authorization: 'not-a-key' } })).status,
      200,
    );
  });
});
