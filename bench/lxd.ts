// `npm run bench -- --only lxd` (or `--lxd`, or `node bench/lxd.ts`): the real compute driver on LXD.
// Reports, for the Debian image (nubis-cloud: Debian 12 with systemd, OpenSSH and cloud-init), the
// time from server/create to a working SSH login (server/info asked every 100 ms until it shows the
// server running, then logins tried every 100 ms) beside the engine's own launch of the same image
// with the same configuration (the instance Nubis made, copied: its config, devices and profiles,
// made and then started once Nubis's is removed; its address asked of the engine every 100 ms,
// then logins), alternating, --samples each (default 3);
// then the same create → SSH for nubis-tiny, and how many creates a minute the driver sustains
// (--burst servers created at once, default 6 (the account's server limit), until all are
// running). Needs a reachable LXD prepared as `npm run test:lxd` prepares it; run it under the
// shared lock (`flock /tmp/nubis-lxd.lock npm run bench -- --only lxd`).

import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { instanceName } from '../src/compute/lxd-engine.ts';
import type { JsonBody } from '../test/support/instance.ts';
import {
  addressRegion,
  awaitPower,
  engine,
  eventually,
  keyedAccount,
  publicAddress,
  serverInfo,
  ssh,
  startLxdInstance,
  TEST_CLOUD_IMAGE,
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
const lxd = engine();
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
// Reconciliation and the usage reading at their defaults, as a serving Nubis runs them: the suite's
// one-second rounds read every running machine's state from the engine each second, beside the boot.
const nubis = await startLxdInstance({
  CATALOG_FILE: catalog,
  COMPUTE_JOB_CONCURRENCY: String(Math.max(4, burst)),
  COMPUTE_RECONCILE_SECONDS: '30',
  COMPUTE_USAGE_SECONDS: '60',
});
const { account, key, keyId } = await keyedAccount(nubis);
const made: string[] = [];

async function create(n: number, image = TEST_IMAGE, region = 101): Promise<string> {
  const result = await nubis.request('POST', '/v1.3/server/create', {
    token: account.token,
    body: {
      hostname: `bench-${n}.example.com`,
      label: `bench ${n}`,
      region,
      image,
      plan: 1,
      ssh_key: keyId,
    },
  });
  if (result.status !== 201) throw new Error(`create failed: ${result.status} ${JSON.stringify(result.body)}`);
  made.push(result.body.uuid);
  return result.body.uuid;
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Asks server/info every 100 ms, as often as the logins below are tried, until it shows the server
 * running: the client's own polling then adds no more to Nubis's figure than to the engine's.
 */
async function awaitRunning(uuid: string): Promise<JsonBody> {
  const until = performance.now() + 120_000;
  for (;;) {
    const info = await serverInfo(nubis, account.token, uuid);
    if (info.power === 'running') return info;
    if (performance.now() > until) throw new Error(`server ${uuid} not running within 120 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Asks the engine every 100 ms until the instance holds an IPv4 address on eth0. */
async function awaitEngineAddress(name: string): Promise<void> {
  const until = performance.now() + 120_000;
  for (;;) {
    const state = await lxd.get<{ network?: Record<string, { addresses: { family: string }[] }> }>(
      `/1.0/instances/${name}/state`,
    );
    if (state.network?.eth0?.addresses.some((a) => a.family === 'inet')) return;
    if (performance.now() > until) throw new Error(`instance ${name} has no address within 120 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Logs in over SSH until it works; answers when it did. */
async function sshLogin(address: string): Promise<number> {
  while (ssh(address, { key: key.path }, 'true').code !== 0) await new Promise((r) => setTimeout(r, 100));
  return performance.now();
}

interface DebianRun {
  /** create → running as Nubis shows it, and → a working SSH login (ms). */
  running: number;
  ssh: number;
  /** The engine's own launch of the same instance: create and start in one call, then the login. */
  engineStarted: number;
  engineSsh: number;
}

/** One Debian server through Nubis, then the engine's own launch of a copy of its instance. */
async function debianRun(n: number): Promise<DebianRun> {
  const started = performance.now();
  const uuid = await create(n, TEST_CLOUD_IMAGE, addressRegion.id);
  const info = await awaitRunning(uuid);
  const running = performance.now() - started;
  const address = publicAddress(info);
  const ssh = (await sshLogin(address)) - started;
  // The instance as Nubis made it, without what the engine or Nubis note on it afterwards.
  const instance = await lxd.get<{
    config: Record<string, string>;
    devices: Record<string, Record<string, string>>;
    profiles: string[];
    type: string;
  }>(`/1.0/instances/${instanceName(uuid)}`);
  const config = Object.fromEntries(
    Object.entries(instance.config).filter(
      ([name]) => !name.startsWith('volatile.') && !name.startsWith('user.nubis.'),
    ),
  );
  await nubis.request('DELETE', `/v1.3/server/remove/${uuid}`, { token: account.token });
  await eventually('the server removed', 120, async () =>
    (await lxd.exists(`/1.0/instances/${instanceName(uuid)}`)) ? undefined : true,
  );
  const copy = `bench-engine-${process.pid}-${n}`;
  const engineStart = performance.now();
  try {
    await lxd.run('POST', '/1.0/instances', {
      body: {
        name: copy,
        type: instance.type,
        source: { type: 'image', fingerprint: instance.config['volatile.base_image'] },
        profiles: instance.profiles,
        config,
        devices: instance.devices,
      },
    });
    // Then started, as `lxc launch` does: LXD 5.0 (Debian's) has no `start` in a create and ignores it.
    await lxd.run('PUT', `/1.0/instances/${copy}/state`, { body: { action: 'start' } });
    const engineStarted = performance.now() - engineStart;
    // Its address asked of the engine every 100 ms, as Nubis's running is asked of Nubis: a login
    // tried before the guest holds it waits for the host's ARP (up to ssh's 3 s connect timeout),
    // which made this figure coarse.
    await awaitEngineAddress(copy);
    const engineSsh = (await sshLogin(address)) - engineStart;
    return { running, ssh, engineStarted, engineSsh };
  } finally {
    await lxd.run('PUT', `/1.0/instances/${copy}/state`, { body: { action: 'stop', force: true } }).catch(() => {});
    await lxd.run('DELETE', `/1.0/instances/${copy}`).catch(() => {});
  }
}

try {
  const loadBefore = loadavg();
  const debian: DebianRun[] = [];
  for (let n = 0; n < samples; n++) debian.push(await debianRun(200 + n));
  const loadAfter = loadavg();
  const column = (pick: (run: DebianRun) => number) =>
    `median ${seconds(median(debian.map(pick)))} s (${debian.map((run) => seconds(pick(run))).join(', ')})`;
  console.log(
    `\nreal driver (LXD), Debian (nubis-cloud), ${samples} each, alternating; load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(1)).join(' ')} after`,
  );
  console.log(`Nubis: create → running ${column((run) => run.running)}`);
  console.log(`Nubis: create → SSH login ${column((run) => run.ssh)}`);
  console.log(`engine's own launch: create and start ${column((run) => run.engineStarted)}`);
  console.log(`engine's own launch: → SSH login ${column((run) => run.engineSsh)}`);
  console.log(
    `create → SSH, Nubis ÷ the engine's own: ${(median(debian.map((run) => run.ssh)) / median(debian.map((run) => run.engineSsh))).toFixed(2)} (target ≤ 1.25; Nubis ≤ 5 s)`,
  );

  const times: number[] = [];
  for (let n = 0; n < samples; n++) {
    const started = performance.now();
    const uuid = await create(n);
    const info = await awaitPower(nubis, account.token, uuid, 'running');
    times.push((await sshLogin(publicAddress(info))) - started);
  }
  const burstStarted = performance.now();
  const uuids = await Promise.all(Array.from({ length: burst }, (_, i) => create(100 + i)));
  await Promise.all(uuids.map((uuid) => awaitPower(nubis, account.token, uuid, 'running', 600)));
  const minutes = (performance.now() - burstStarted) / 60_000;
  console.log(`\nreal driver (LXD, nubis-tiny containers)`);
  console.log(
    `create → SSH login: median ${seconds(median(times))} s over ${samples} (${times.map(seconds).join(', ')} s)`,
  );
  console.log(
    `creates a minute: ${(burst / minutes).toFixed(1)} (${burst} created at once, all running in ${(minutes * 60).toFixed(1)} s)`,
  );
} finally {
  for (const uuid of made) await nubis.request('DELETE', `/v1.3/server/remove/${uuid}`, { token: account.token });
  await new Promise((r) => setTimeout(r, 5000 + made.length * 500));
  await nubis.close();
}
