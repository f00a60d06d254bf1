// `node bench/lxd-reconcile.ts 5,50` (under `flock /tmp/nubis-lxd.lock`, with LXD running): what the
// LXD driver's side of reconciliation costs with N idle running instances. For each N it starts N
// containers of the tiny test image (no NIC, the `nubis` profile's pool), then measures this
// process's CPU for the calls a minute of defaults makes: two status rounds with nothing heard
// (COMPUTE_RECONCILE_SECONDS 30: one `GET /1.0` each, the informer listening) and one usage reading
// (COMPUTE_USAGE_SECONDS 60: every running instance in one call); beside it, what the same two
// rounds cost when each read every instance (before the informer). The containers go at the end.

import { randomUUID } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { instanceName, LxdClient, LxdDriver } from '../src/compute/lxd-engine.ts';

const url = process.env.LXD_URL ?? '/var/lib/lxd/unix.socket';
const image = process.env.LXD_BENCH_IMAGE ?? 'nubis-tiny';
const repeat = 20;

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/** The mean CPU of `call` over `repeat` calls, after one to warm up. */
async function meanCpu(call: () => Promise<unknown>): Promise<number> {
  await call();
  const started = process.cpuUsage();
  for (let i = 0; i < repeat; i++) await call();
  return cpuMs(started) / repeat;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

async function measure(count: number): Promise<void> {
  const client = new LxdClient({ url });
  const names = Array.from({ length: count }, () => instanceName(randomUUID()));
  try {
    for (const name of names)
      await client.run('POST', '/1.0/instances', {
        body: { name, source: { type: 'image', alias: image }, profiles: ['nubis'], type: 'container' },
      });
    for (const name of names)
      await client.run('PUT', `/1.0/instances/${name}/state`, { body: { action: 'start', timeout: 30 } });
    const config = loadConfig({ ...process.env, COMPUTE_DRIVER: 'lxd', LXD_URL: url, LOG_LEVEL: 'silent' });
    const driver = new LxdDriver(config, new LxdClient({ url }));
    try {
      const now = Date.now();
      const quiet = await meanCpu(() => driver.observe(new Map(), now, new Set()));
      const usage = await meanCpu(() => driver.readUsage(now));
      const full = await meanCpu(() => driver.readAll(now));
      const running = (await driver.readUsage(now)).size;
      console.log(
        `lxd reconcile: ${count} instances (${running} read running): a minute costs ${round(2 * quiet + usage)} ms CPU ` +
          `(2 quiet rounds ${round(quiet)} ms each + 1 usage reading ${round(usage)} ms); ` +
          `before, 2 full rounds ${round(2 * full)} ms`,
      );
    } finally {
      driver.close();
    }
  } finally {
    for (const name of names) {
      await client
        .run('PUT', `/1.0/instances/${name}/state`, { body: { action: 'stop', force: true, timeout: 30 } })
        .catch(() => {});
      await client.run('DELETE', `/1.0/instances/${name}`).catch(() => {});
    }
    client.close();
  }
}

for (const count of (process.argv[2] ?? '5,50').split(',').map(Number)) await measure(count);
