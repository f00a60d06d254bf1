// The cluster suite's harness: a catalog whose region 101 sits on the test cluster (its pool on the
// uplink `nubisc-up`, its servers in the cluster group), and a Nubis talking to the cluster over
// HTTPS with a client certificate, to its first member. SSH and polling come from the LXD suite.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LxdClient } from '../../src/compute/lxd-engine.ts';
import { type JsonBody, startTestInstance, type TestInstance } from '../support/instance.ts';
import { engineSuite, type LxdSuite, type SuiteOptions, TEST_IMAGE } from '../lxd/support.ts';
import { clusterConnection, clusterGroup, memberPoolSize, uplinkInterface } from './members.ts';

/** Region 101 of the cluster catalog: its pool on the uplink (the host holds .254). */
export const clusterPool = '172.31.201.0/24';
export const CLUSTER_REGION = 101;
/** The servers' pool on every member: btrfs, each member's own loop file. */
export const clusterStoragePool = 'nubis-quota';
/** A plan of the cluster catalog with a 1 GB disk, for a disk filled past its plan. */
export const CLUSTER_SMALL_PLAN = 901;
export const CLUSTER_SMALL_PLAN_DISK_GB = 1;

/** The catalog of the cluster suite: region 101 on the cluster, image 1001 = nubis-tiny, plan 901 a 1 GB disk. */
export function writeClusterCatalog(): string {
  const catalog = JSON.parse(readFileSync(new URL('../../src/catalog/catalog.json', import.meta.url), 'utf8'));
  const region = catalog.regions.find((r: JsonBody) => r.id === CLUSTER_REGION);
  region.pools = { v4: [clusterPool], v6: null };
  region.features.ipv6 = false;
  region.ping_ip = '';
  region.engine = { cluster_group: clusterGroup, uplink: uplinkInterface };
  catalog.regions = [region];
  const image = catalog.images.find((i: JsonBody) => i.id === TEST_IMAGE);
  image.name = 'Nubis test image';
  image.min_disk_gb = 1;
  image.regions = [CLUSTER_REGION];
  image.engine = { image: 'nubis-tiny' };
  catalog.images = [image];
  catalog.plans = catalog.plans.map((plan: JsonBody) => ({ ...plan, regions: [] }));
  catalog.plans.push({
    ...catalog.plans[0],
    id: CLUSTER_SMALL_PLAN,
    uuid: 'c3b1b7b0-6c1a-4e39-8c7e-000000000901',
    name: 'test-1gb-disk',
    disk_gb: CLUSTER_SMALL_PLAN_DISK_GB,
  });
  const path = join(mkdtempSync(join(tmpdir(), 'nubis-cluster-catalog-')), 'catalog.json');
  writeFileSync(path, JSON.stringify(catalog, null, 2));
  return path;
}

/** What a Nubis on the test cluster is configured with (the engine part). */
export function clusterEnv(catalog = process.env.CLUSTER_TEST_CATALOG ?? writeClusterCatalog()) {
  const cluster = clusterConnection();
  return {
    COMPUTE_DRIVER: 'lxd',
    LXD_URL: cluster.url,
    LXD_CLIENT_CERT: cluster.clientCert,
    LXD_CLIENT_KEY: cluster.clientKey,
    LXD_SERVER_CERT: cluster.serverCert,
    // btrfs on a loop file in each member (made by `nubis compute setup`): root disks have quotas.
    LXD_STORAGE_POOL: clusterStoragePool,
    LXD_STORAGE_DRIVER: 'btrfs',
    LXD_STORAGE_SIZE: memberPoolSize,
    CATALOG_FILE: catalog,
  };
}

/** The cluster as Nubis sees it: over HTTPS to the first member. */
export function clusterEngine(): LxdClient {
  const cluster = clusterConnection();
  return new LxdClient({
    url: cluster.url,
    clientCert: cluster.clientCert,
    clientKey: cluster.clientKey,
    serverCert: cluster.serverCert,
  });
}

export function startClusterInstance(env: Record<string, string> = {}): Promise<TestInstance> {
  return startTestInstance({
    ...clusterEnv(),
    COMPUTE_RECONCILE_SECONDS: '1',
    COMPUTE_JOB_CONCURRENCY: '4',
    CLOCK: 'system',
    KEEP_ALIVE_TIMEOUT_MS: '600000',
    ...env,
  });
}

/**
 * What every cluster suite starts with: `lxdSuite`'s set-up (Nubis, alice, a key pair, servers
 * removed after the file's tests, then `cleanUp`) on the test cluster, `lxd` its first member.
 */
export function clusterSuite(options: SuiteOptions = {}): Promise<LxdSuite> {
  return engineSuite(clusterEngine(), startClusterInstance, options);
}

/** The member an instance is on, as the engine reports it. */
export async function locationOf(lxd: LxdClient, serverUuid: string): Promise<string> {
  const instance = await lxd.get<{ location: string }>(`/1.0/instances/nubis-${serverUuid}`);
  return instance.location;
}
