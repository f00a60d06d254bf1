// `npm run test:cluster`: the real driver on an LXD cluster of three members, each a nested system
// container on this machine holding Debian's LXD (test/cluster/members.ts builds the cluster once
// and reuses it while healthy). Puts the test image in the cluster, runs `nubis compute setup`
// against it, then test/cluster/*.cluster.ts. Without nesting it prints "not run: ..." and,
// under CI=true, fails.

import './compile-cache.ts';
import { spawnSync } from 'node:child_process';
import { tinyImageRevision } from '../src/compute/lxd-engine.ts';
import { clusterEngine, clusterEnv, writeClusterCatalog } from '../test/cluster/support.ts';
import { ensureCluster, memberNames, nestingProblem } from '../test/cluster/members.ts';

const ci = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const problem = nestingProblem();
if (problem) {
  console.log(`not run: ${problem}; the cluster suite needs nested LXD members (see docs/cluster.md)`);
  process.exit(ci ? 1 : 0);
}

console.log(`\n=== the test cluster: ${memberNames.length} members ===`);
try {
  await ensureCluster((line) => console.log(line));
} catch (error) {
  console.log(`not run: the cluster could not be built here (${(error as Error).message})`);
  process.exit(ci ? 1 : 0);
}

const catalog = writeClusterCatalog();
const env = { ...process.env, ...clusterEnv(catalog), CLUSTER_TEST_CATALOG: catalog };
const nubis = (...args: string[]) => spawnSync(process.execPath, ['bin/nubis.ts', ...args], { stdio: 'inherit', env });

const client = clusterEngine();
async function tinyRevision(): Promise<string | null> {
  if (!(await client.exists('/1.0/images/aliases/nubis-tiny'))) return null;
  const alias = await client.get<{ target: string }>('/1.0/images/aliases/nubis-tiny');
  const image = await client.get<{ properties?: Record<string, string> }>(`/1.0/images/${alias.target}`);
  return image.properties?.['nubis.revision'] ?? '';
}
if ((await tinyRevision()) !== tinyImageRevision) {
  console.log('\n=== building the test image into the cluster (nubis images build --only tiny) ===');
  if (nubis('images', 'build', '--only', 'tiny').status !== 0) process.exit(1);
}
client.close();
console.log('\n=== nubis compute setup (every member) ===');
if (nubis('compute', 'setup').status !== 0) process.exit(1);

const files = process.argv.length > 2 ? process.argv.slice(2) : ['test/cluster/*.cluster.ts'];
console.log(`\n=== cluster suite: ${files.join(' ')} ===`);
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=1', '--test-timeout=900000', ...files], {
  stdio: 'inherit',
  env: { ...env, TEST_DB: process.env.TEST_DB ?? 'sqlite' },
});
process.exit(result.status === 0 ? 0 : 1);
