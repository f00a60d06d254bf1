// `npm run bench -- --lxd` (or `node bench/lxd.ts`): the real compute driver on LXD. Reports the
// time from server/create to a working SSH login (median of --samples, default 3) and how many
// creates a minute the driver sustains (--burst servers created at once, default 6 (the account's server limit), until all
// are running). Needs a reachable LXD prepared as `npm run test:lxd` prepares it.

import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { createAccount } from '../test/support/accounts.ts';
import {
  awaitPower,
  keyPair,
  publicAddress,
  ssh,
  startLxdInstance,
  TEST_IMAGE,
  writeTestCatalog,
} from '../test/lxd/support.ts';

const { values } = parseArgs({
  options: {
    samples: { type: 'string', default: '3' },
    burst: { type: 'string', default: '6' },
    lxd: { type: 'boolean' },
  },
  strict: false,
});
const samples = Number(values.samples);
const burst = Number(values.burst);

const catalog = writeTestCatalog();
const setup = spawnSync(process.execPath, ['bin/nubis.ts', 'compute', 'setup'], {
  env: { ...process.env, CATALOG_FILE: catalog, COMPUTE_DRIVER: 'lxd' },
  encoding: 'utf8',
});
if (setup.status !== 0) {
  console.log(`not run: nubis compute setup failed (${(setup.stderr || setup.stdout).trim()})`);
  process.exit(1);
}
const nubis = await startLxdInstance({ CATALOG_FILE: catalog, COMPUTE_JOB_CONCURRENCY: String(Math.max(4, burst)) });
const account = await createAccount(nubis, { credit: 5000 });
const key = keyPair();
const keyId = (
  await nubis.request('POST', '/v1.3/ssh_key/create', {
    token: account.token,
    body: { name: 'bench', public_key: key.publicKey },
  })
).body.uuid;
const made: string[] = [];

async function create(n: number): Promise<string> {
  const result = await nubis.request('POST', '/v1.3/server/create', {
    token: account.token,
    body: {
      hostname: `bench-${n}.example.com`,
      label: `bench ${n}`,
      region: 101,
      image: TEST_IMAGE,
      plan: 1,
      ssh_key: keyId,
    },
  });
  if (result.status !== 201) throw new Error(`create failed: ${result.status} ${JSON.stringify(result.body)}`);
  made.push(result.body.uuid);
  return result.body.uuid;
}

try {
  const times: number[] = [];
  for (let n = 0; n < samples; n++) {
    const started = performance.now();
    const uuid = await create(n);
    const info = await awaitPower(nubis, account.token, uuid, 'running');
    const address = publicAddress(info);
    while (ssh(address, { key: key.path }, 'true').code !== 0) await new Promise((r) => setTimeout(r, 100));
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  const burstStarted = performance.now();
  const uuids = await Promise.all(Array.from({ length: burst }, (_, i) => create(100 + i)));
  await Promise.all(uuids.map((uuid) => awaitPower(nubis, account.token, uuid, 'running', 600)));
  const minutes = (performance.now() - burstStarted) / 60_000;
  console.log(`\nreal driver (LXD, nubis-tiny containers)`);
  console.log(
    `create → SSH login: median ${(median / 1000).toFixed(2)} s over ${samples} (${times.map((t) => (t / 1000).toFixed(2)).join(', ')} s)`,
  );
  console.log(
    `creates a minute: ${(burst / minutes).toFixed(1)} (${burst} created at once, all running in ${(minutes * 60).toFixed(1)} s)`,
  );
} finally {
  for (const uuid of made) await nubis.request('DELETE', `/v1.3/server/remove/${uuid}`, { token: account.token });
  await new Promise((r) => setTimeout(r, 5000 + made.length * 500));
  await nubis.close();
}
