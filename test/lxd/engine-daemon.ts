// The engine's daemon, killed and started again by the failure suite (a crash of LXD itself, not
// of a connection): SIGKILL by its pid, then started as .ci/run starts it and waited for on its
// socket. Instances keep running across it. Other suites must not run meanwhile: it is done only
// while this machine's LXD lock (/tmp/nubis-lxd.lock) is held, as every test:lxd run is.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { LxdClient } from '../../src/compute/lxd-engine.ts';
import { eventually, lxdUrl } from './support.ts';

const lockFile = '/tmp/nubis-lxd.lock';

/** True while some process holds the LXD lock (a `flock -n` of ours would not get it). */
function lockHeld(): boolean {
  return spawnSync('flock', ['-n', lockFile, 'true']).status !== 0;
}

/**
 * The daemon's pid: the `lxd` process that is no subcommand (forkexec, forkfile... are its
 * helpers) and runs in this host's own namespaces: an engine nested in a container (a cluster
 * member another suite made) shows in /proc too, with the same command line, and is not ours.
 */
export function daemonPid(): number | null {
  const own = namespaces('self');
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      if (namespaces(entry) !== own) continue;
    } catch {
      continue;
    }
    if (!argv[0] || !/(^|\/)lxd$/.test(argv[0])) continue;
    if (argv[1] === undefined || argv[1].startsWith('-')) return Number(entry);
  }
  return null;
}

function namespaces(pid: string): string {
  return `${readlinkSync(`/proc/${pid}/ns/pid`)} ${readlinkSync(`/proc/${pid}/ns/mnt`)}`;
}

async function answers(client: LxdClient): Promise<boolean> {
  try {
    await client.get('/1.0');
    return true;
  } catch {
    return false;
  }
}

/** Kills the daemon (SIGKILL, a crash) and waits until it is gone. */
export async function killDaemon(): Promise<void> {
  assert.ok(
    lockHeld() || /^(1|true)$/i.test(process.env.CI ?? ''),
    `the engine's daemon is killed only under ${lockFile} (run: flock ${lockFile} npm run test:lxd -- ...)`,
  );
  const pid = daemonPid();
  assert.ok(pid, 'the engine daemon runs');
  // And it is the one listening on the socket this suite's Nubis talks to.
  const listening = spawnSync('ss', ['-xlpn'], { encoding: 'utf8' }).stdout.split('\n');
  assert.ok(
    listening.some((line) => line.includes(` ${lxdUrl} `) && line.includes(`pid=${pid},`)),
    `pid ${pid} listens on ${lxdUrl}`,
  );
  process.kill(pid, 'SIGKILL');
  await eventually('the daemon gone', 30, async () => (daemonPid() === pid ? undefined : true));
}

/** Starts the daemon when none runs (as .ci/run does: from /, in a session of its own) and waits for it. */
export async function startDaemon(): Promise<void> {
  const client = new LxdClient({ url: lxdUrl, timeoutMs: 5000 });
  try {
    if (daemonPid() === null) {
      const started = spawnSync('sh', [
        '-c',
        'mkdir -p /var/log/lxd && cd / && (setsid lxd --group root --logfile /var/log/lxd/lxd.log >/var/log/lxd/daemon.out 2>&1 </dev/null &)',
      ]);
      assert.equal(started.status, 0, String(started.stderr));
    }
    await eventually('the engine daemon answering', 120, async () => ((await answers(client)) ? true : undefined));
    // Answering is not ready: the daemon finishes starting its networks and storage first.
    const ready = spawnSync('lxd', ['waitready', '--timeout=120']);
    assert.equal(ready.status, 0, String(ready.stderr));
  } finally {
    client.close();
  }
}
