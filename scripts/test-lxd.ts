// `npm run test:lxd`: the real-driver suite on LXD (or Incus). Prepares the engine for the test
// catalog (`nubis compute setup`, and `nubis images build --only tiny`, `--only cloud` or `--only debian`
// when an image is missing or of an older revision), then runs test/lxd/*.lxd.ts on SQLite and the PostgreSQL scenario. Without a
// reachable engine it prints "not run: ..." and, under CI=true, fails.

import './compile-cache.ts';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cloudImageRevision, debianImageRevision, LxdClient, tinyImageRevision } from '../src/compute/lxd-engine.ts';
import { lxdUrl, testStorage, writeTestCatalog } from '../test/lxd/support.ts';

const ci = /^(1|true|yes)$/i.test(process.env.CI ?? '');
const client = new LxdClient({ url: lxdUrl, timeoutMs: 5000 });
try {
  await client.get('/1.0');
} catch (error) {
  console.log(
    `not run: the LXD engine is not reachable at ${lxdUrl} (${(error as Error).message}); install and start LXD (see docs/lxd.md)`,
  );
  process.exit(ci ? 1 : 0);
}

const catalog = writeTestCatalog();
const env = {
  ...process.env,
  CATALOG_FILE: catalog,
  LXD_URL: lxdUrl,
  ...testStorage,
  LXD_TEST_CATALOG: catalog,
  COMPUTE_DRIVER: 'lxd',
};
const nubis = (...args: string[]) => spawnSync(process.execPath, ['bin/nubis.ts', ...args], { stdio: 'inherit', env });

/** The revision of a test image the engine holds (null when it has none, '' for one from before revisions). */
async function revision(alias: string): Promise<string | null> {
  if (!(await client.exists(`/1.0/images/aliases/${alias}`))) return null;
  const target = await client.get<{ target: string }>(`/1.0/images/aliases/${alias}`);
  const image = await client.get<{ properties?: Record<string, string> }>(`/1.0/images/${target.target}`);
  return image.properties?.['nubis.revision'] ?? '';
}
// nubis-cloud and nubis-debian (the image a catalog's images use by default) are debootstraps of
// Debian: minutes to build, so kept in the engine between runs.
for (const [only, alias, wanted] of [
  ['tiny', 'nubis-tiny', tinyImageRevision],
  ['cloud', 'nubis-cloud', cloudImageRevision],
  ['debian', 'nubis-debian', debianImageRevision],
] as const) {
  if ((await revision(alias)) === wanted) continue;
  console.log(`\n=== building a test image (nubis images build --only ${only}) ===`);
  if (nubis('images', 'build', '--only', only).status !== 0) process.exit(1);
}
client.close();
console.log('\n=== nubis compute setup (test catalog) ===');
if (nubis('compute', 'setup').status !== 0) process.exit(1);

const everySuite = readdirSync('test/lxd')
  .filter((name) => name.endsWith('.lxd.ts'))
  .map((name) => `test/lxd/${name}`)
  .sort();
const runs: { db: string; files: string[] }[] = [
  { db: 'sqlite', files: everySuite },
  { db: 'postgres', files: ['test/lxd/fault.lxd.ts'] },
];
let failed = false;
for (const run of process.argv.length > 2
  ? [{ db: process.env.TEST_DB ?? 'sqlite', files: process.argv.slice(2) }]
  : runs) {
  console.log(`\n=== real-driver suite on ${run.db}: ${run.files.join(' ')} ===`);
  const result = spawnSync(
    process.execPath,
    ['--test', '--test-concurrency=1', '--test-timeout=600000', ...run.files],
    {
      stdio: 'inherit',
      env: { ...env, TEST_DB: run.db },
    },
  );
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
