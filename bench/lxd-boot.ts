// `flock /tmp/nubis-lxd.lock node bench/lxd-boot.ts [--samples N] [--keep]`: where a Debian server's
// seconds go between server/create and a working SSH login (issue 38). A nubis-cloud server through
// Nubis, then the engine's own launch of a copy of its instance (as bench/lxd.ts makes it), each
// with a timeline from the first call: the engine's log and lifecycle events (create, files, start,
// the id remap), port 22 first open, the first login, and the guest's own journal (the guest shares
// the host's monotonic clock, so its stamps land on the same timeline); then cloud-init's stages.
// Needs the engine prepared as `npm run test:lxd` prepares it. A probe: its figures go in
// docs/benchmarks.md by hand.

import { spawn, spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { instanceName } from '../src/compute/lxd-engine.ts';
import {
  addressRegion,
  engine,
  eventually,
  keyedAccount,
  publicAddress,
  serverInfo,
  ssh,
  startLxdInstance,
  TEST_CLOUD_IMAGE,
  writeTestCatalog,
} from '../test/lxd/support.ts';

const { values } = parseArgs({ options: { samples: { type: 'string', default: '1' }, keep: { type: 'boolean' } } });
const lxd = engine();
// Reconciliation and the usage reading at their defaults, as in bench/lxd.ts.
const nubis = await startLxdInstance({
  CATALOG_FILE: writeTestCatalog(),
  COMPUTE_RECONCILE_SECONDS: '30',
  COMPUTE_USAGE_SECONDS: '60',
});
const { account, key, keyId } = await keyedAccount(nubis);

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const monotonicMs = () => Number(process.hrtime.bigint() / 1000n) / 1000;

/** Whether port 22 accepts a connection (sshd listening) within 300 ms. */
function portOpen(address: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: address, port: 22, timeout: 300 });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** The engine's lifecycle events and log (every level), each with the monotonic time it was heard. */
function monitor(): { lines: { at: number; text: string }[]; stop: () => void } {
  const lines: { at: number; text: string }[] = [];
  const child = spawn('lxc', ['monitor', '--type=lifecycle', '--type=logging', '--format=json']);
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      try {
        const { type, metadata } = JSON.parse(line);
        const context = metadata.context ?? {};
        const text =
          type === 'lifecycle'
            ? `${metadata.action} ${metadata.source}`
            : `${metadata.message}${context.instance ? ` (${context.instance})` : ''}${context.method ? ` ${context.method} ${context.url}` : ''}`;
        lines.push({ at: monotonicMs(), text });
      } catch {}
    }
  });
  return { lines, stop: () => child.kill() };
}

const engineLine =
  /instance-(created|started|updated|file-pushed)|remapping|Start (started|finished)|CreateInstanceFromImage|Starting container|Started container|PUT|POST/;
const guestLine =
  /Started|Finished|Reached target (network|sysinit|multi-user)|listening|Accepted|Starting (cloud|ssh|networking)/;
const guestNoise =
  /Started (Session|session)|user@|Finished (systemd-(update-utmp|tmpfiles|sysctl|sysusers|remount|journal|user-sessions)|modprobe)|timer|getty|resolvconf|Started (systemd-|cloud-init-hotplugd)/;

/**
 * Runs `launch` (which answers the instance's name and address once known), then polls port 22
 * and logs in; prints the timeline from the launch's start, engine and guest together.
 */
async function timeline(title: string, launch: () => Promise<{ name: string; address: string }>): Promise<string> {
  const heard = monitor();
  await sleep(300);
  const load = loadavg()[0]!.toFixed(2);
  const started = monotonicMs();
  const marks: [number, string][] = [];
  const mark = (what: string) => marks.push([monotonicMs(), what]);
  const { name, address } = await launch();
  mark('address known to the probe');
  while (!(await portOpen(address))) await sleep(50);
  mark('port 22 open');
  while (ssh(address, { key: key.path }, 'true').code !== 0) await sleep(50);
  mark('SSH login');
  heard.stop();
  for (const { at, text } of heard.lines)
    if ((engineLine.test(text) && text.includes(name)) || (process.env.PROBE_ALL && /Handling API/.test(text)))
      marks.push([at, `engine: ${text.replace(name, '…')}`]);
  const inGuest = (command: string) => {
    const run = spawnSync('lxc', ['exec', name, '--', 'sh', '-c', command], { encoding: 'utf8' });
    return `${run.stdout}${run.stderr}`.trim();
  };
  for (const line of inGuest('journalctl -b -o short-monotonic --no-pager').split('\n')) {
    const match = /^\[\s*([\d.]+)\] \S+ (.*)$/.exec(line);
    if (match && guestLine.test(match[2]!) && !guestNoise.test(match[2]!))
      marks.push([Number(match[1]) * 1000, `guest: ${match[2]!.slice(0, 100)}`]);
  }
  marks.sort((a, b) => a[0] - b[0]);
  console.log(`\n${title} (${name}), load ${load} at the start, ${loadavg()[0]!.toFixed(2)} at the login`);
  for (const [at, what] of marks) console.log(`  ${seconds(at - started).padStart(8)}  ${what}`);
  console.log(
    inGuest(
      'cloud-init analyze show 2>/dev/null | grep -E "^Finished stage|Total Time"; systemd-analyze blame | head -6',
    ),
  );
  return name;
}

interface InstanceBody {
  config: Record<string, string>;
  devices: Record<string, Record<string, string>>;
  profiles: string[];
  type: string;
}

async function sample(n: number): Promise<void> {
  let uuid = '';
  const name = await timeline(`server ${n} through Nubis`, async () => {
    const created = await nubis.request('POST', '/v1.3/server/create', {
      token: account.token,
      body: {
        hostname: `boot-${n}.example.com`,
        label: `boot ${n}`,
        region: addressRegion.id,
        image: TEST_CLOUD_IMAGE,
        plan: 1,
        ssh_key: keyId,
      },
    });
    uuid = created.body.uuid as string;
    // The address is shown once the create job has placed the server: polled, as a client would.
    const address = await eventually('an address', 60, async () => {
      const info = await serverInfo(nubis, account.token, uuid);
      return info.power === 'running' ? publicAddress(info) : undefined;
    });
    return { name: instanceName(uuid), address };
  });
  const instance = await lxd.get<InstanceBody>(`/1.0/instances/${name}`);
  const address = publicAddress(await serverInfo(nubis, account.token, uuid));
  await nubis.request('DELETE', `/v1.3/server/remove/${uuid}`, { token: account.token });
  await eventually('removed', 120, async () => ((await lxd.exists(`/1.0/instances/${name}`)) ? undefined : true));
  const copy = `boot-engine-${process.pid}-${n}`;
  try {
    await timeline(`server ${n}: the engine's own launch of its copy`, async () => {
      await lxd.run('POST', '/1.0/instances', {
        body: {
          name: copy,
          type: instance.type,
          source: { type: 'image', fingerprint: instance.config['volatile.base_image'] },
          profiles: instance.profiles,
          config: Object.fromEntries(
            Object.entries(instance.config).filter(([k]) => !k.startsWith('volatile.') && !k.startsWith('user.nubis.')),
          ),
          devices: instance.devices,
        },
      });
      await lxd.run('PUT', `/1.0/instances/${copy}/state`, { body: { action: 'start' } });
      return { name: copy, address };
    });
  } finally {
    if (!values.keep) {
      await lxd.run('PUT', `/1.0/instances/${copy}/state`, { body: { action: 'stop', force: true } }).catch(() => {});
      await lxd.run('DELETE', `/1.0/instances/${copy}`).catch(() => {});
    }
  }
}

try {
  for (let n = 0; n < Number(values.samples); n++) await sample(n);
} finally {
  await nubis.close();
}
