// `nubis compute setup`'s storage pool on a cluster, against a stand-in engine that records the
// calls: made with quotas on every member (a loop file of its own each), used as it is once there,
// made again when an interrupted setup left it pending, and a pool without quotas warned about.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Config } from '../../config.ts';
import type { Catalog } from '../../catalog/catalog.types.ts';
import { LxdError, type LxdClient } from './lxd-client.ts';
import { computeSetup } from './setup.ts';

const config = { lxdStoragePool: 'nubis-quota', lxdStorageDriver: 'btrfs', lxdStorageSize: '8GiB' } as Config;
const catalog: Catalog = { regions: new Map(), images: new Map(), plans: new Map(), loadedAt: 0 };

/** A cluster of m1 and m2 whose pool is `pool` (null: none); `defined` members already have it pending. */
function cluster(pool: { driver: string; status: string } | null, defined: string[] = []) {
  const calls: { method: string; path: string; body?: unknown }[] = [];
  const client = {
    call: async (method: string, path: string, request: { body?: unknown } = {}) => {
      calls.push({ method, path, body: request.body });
      const target = path.match(/target=([^&]+)/)?.[1];
      if (target && defined.includes(target)) throw new LxdError(400, 'Storage pool already defined on member');
      return { type: 'sync', metadata: {} };
    },
    exists: async (path: string) =>
      path === '/1.0/profiles/nubis' || (pool !== null && path.startsWith('/1.0/storage')),
    get: async (path: string) => {
      if (path === '/1.0')
        return { environment: { server_clustered: true }, config: { 'cluster.images_minimal_replica': '-1' } };
      if (path.startsWith('/1.0/cluster/members')) return [{ server_name: 'm1' }, { server_name: 'm2' }];
      if (path.startsWith('/1.0/storage-pools/')) return pool;
      if (path === '/1.0/profiles/nubis')
        return {
          description: "Nubis servers: the root disk on Nubis's storage pool",
          config: {},
          devices: { root: { type: 'disk', path: '/', pool: 'nubis-quota' } },
        };
      throw new LxdError(404, 'not found');
    },
  } as unknown as LxdClient;
  const poolCalls = () => calls.filter((c) => c.path.startsWith('/1.0/storage-pools'));
  return { client, poolCalls };
}

test('a cluster without the pool: btrfs pending on each member with its own loop file, then global', async () => {
  const { client, poolCalls } = cluster(null);
  const report = await computeSetup(config, catalog, client);
  assert.deepEqual(poolCalls(), [
    {
      method: 'POST',
      path: '/1.0/storage-pools?target=m1',
      body: { name: 'nubis-quota', driver: 'btrfs', config: { size: '8GiB' } },
    },
    {
      method: 'POST',
      path: '/1.0/storage-pools?target=m2',
      body: { name: 'nubis-quota', driver: 'btrfs', config: { size: '8GiB' } },
    },
    {
      method: 'POST',
      path: '/1.0/storage-pools',
      body: { name: 'nubis-quota', driver: 'btrfs', description: undefined, config: {} },
    },
  ]);
  assert.ok(report.created.includes('storage pool nubis-quota (btrfs, 8GiB)'), JSON.stringify(report));
  assert.deepEqual(report.warnings, []);
});

test('run again: the pool there is used as it is', async () => {
  const { client, poolCalls } = cluster({ driver: 'btrfs', status: 'Created' });
  const report = await computeSetup(config, catalog, client);
  assert.deepEqual(poolCalls(), []);
  assert.ok(report.present.includes('storage pool nubis-quota (btrfs)'));
  assert.deepEqual(report.warnings, []);
});

test('a pool an interrupted setup left pending is made again, the members that have it skipped', async () => {
  const { client, poolCalls } = cluster({ driver: 'btrfs', status: 'Pending' }, ['m1']);
  const report = await computeSetup(config, catalog, client);
  assert.deepEqual(
    poolCalls().map((c) => c.path),
    ['/1.0/storage-pools?target=m1', '/1.0/storage-pools?target=m2', '/1.0/storage-pools'],
  );
  assert.ok(report.created.includes('storage pool nubis-quota (btrfs, 8GiB)'));
});

test('a dir pool is used, with a warning that it has no quotas', async () => {
  const { client, poolCalls } = cluster({ driver: 'dir', status: 'Created' });
  const report = await computeSetup(config, catalog, client);
  assert.deepEqual(poolCalls(), []);
  assert.match(report.warnings.join('\n'), /is dir, which has no quotas/);
});
