// The features a region offers follow what the deployment has: on the real driver DDoS protection,
// block and object storage and custom ISOs only where the operator declares the service; on
// every driver instances, floating IPs and IPv6 only with the pool they need.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadCatalog } from './catalog.ts';
import { offeredFeatures } from './region-features.ts';

const shipped = loadCatalog(null, 0).regions.get(101)!;

describe('offered region features', () => {
  test('the simulated driver shows the catalog as it describes the provider', () => {
    assert.deepEqual(offeredFeatures(shipped, 'simulated'), shipped.features);
  });

  test('the real driver offers no DDoS protection, block or object storage or custom ISO the operator does not declare', () => {
    assert.equal(shipped.features.ddos_protection, true);
    const offered = offeredFeatures(shipped, 'lxd');
    assert.equal(offered.ddos_protection, false);
    assert.equal(offered.block_storage, false);
    assert.equal(offered.object_storage, false);
    assert.equal(offered.custom_iso, false);
    assert.equal(offered.instances, true);
    assert.equal(offered.backups, shipped.features.backups);
  });

  test('a declared service makes the flag true on the real driver; a flag the catalog sets false stays false', () => {
    const declared = {
      ...shipped,
      features: { ...shipped.features, object_storage: false },
      operator_services: { ddos_protection: 'scrubbing by the uplink', object_storage: 'our S3' },
    };
    const offered = offeredFeatures(declared, 'lxd');
    assert.equal(offered.ddos_protection, true);
    assert.equal(offered.object_storage, false);
  });

  test('no pool, no feature that needs one, on either driver', () => {
    const bare = { ...shipped, pools: { v4: [], v6: null } };
    for (const driver of ['simulated', 'lxd'] as const) {
      const offered = offeredFeatures(bare, driver);
      assert.equal(offered.instances, false);
      assert.equal(offered.floating_ip, false);
      assert.equal(offered.ipv6, false);
    }
  });
});
