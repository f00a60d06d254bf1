// A drain the engine gives up on is shown to the operator, not only logged: a stand-in engine whose
// member goes offline after the drain was recorded refuses to evacuate it; once the job is out of
// attempts the host shows the failure in GET /admin/hosts, the operator's feed has a
// host.drain_failed event and /metrics a gauge — until a later drain succeeds there. (The
// simulated driver drains in the operator's transaction, so it has no job to give up on.)

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import type { Platform } from '../platform/context.ts';
import type { Engine, HostReport } from './compute-driver.ts';
import { startJobRunner } from './job-runner.ts';
import { drainHost } from '../hosts/host.service.ts';
import { Writable } from 'node:stream';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@nubis/cli';
import { ADMIN_TOKEN } from '../../test/support/instance.ts';
import { observedBy, unmodelled } from '../../test/support/engine-stand-in.ts';

const METRICS_TOKEN = 'metrics-token-0123456789';
let nubis: TestInstance;

before(async () => {
  nubis = await startTestInstance({ COMPUTE_JOB_ATTEMPTS: '2', METRICS_TOKEN });
});
after(() => nubis.close());

const hosts = new Map<string, HostReport['status']>([
  ['m1', 'online'],
  ['m2', 'online'],
]);
const evacuations: string[] = [];

const standIn: Engine = {
  ...unmodelled,
  async hosts() {
    return [...hosts].map(([name, status]) => ({
      name,
      status,
      message: status === 'offline' ? 'No heartbeat' : 'Fully operational',
      groups: ['default'],
      capacity: { vcpus: 8, memoryBytes: 16 * 1024 ** 3, diskBytes: null },
    }));
  },
  ...observedBy(
    () => [],
    () => undefined,
  ),
  async converge() {
    return {};
  },
  async produce() {
    return {};
  },
  // As LXD answers for a member that stopped answering.
  async evacuateHost(name) {
    evacuations.push(name);
    if (hosts.get(name) === 'offline') throw new Error(`Member "${name}" is offline`);
    hosts.set(name, 'evacuated');
  },
  async restoreHost(name) {
    hosts.set(name, 'online');
  },
  close() {},
};

function withEngine(ctx: Platform): Platform {
  const compute = new Proxy(ctx.compute, {
    get: (target, key) => (key === 'engine' ? standIn : Reflect.get(target, key)),
  });
  return { ...ctx, compute };
}

async function host(name: string): Promise<{ status: string; failure: string | null }> {
  const answer = await nubis.admin('GET', '/admin/hosts');
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const found = (answer.body.hosts as { name: string; status: string; failure: string | null }[]).find(
    (h) => h.name === name,
  );
  assert.ok(found, JSON.stringify(answer.body));
  return found;
}

async function metrics(): Promise<string> {
  const answer = await fetch(`${nubis.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  return answer.text();
}

/** `nubis admin hosts list` in this process, as the operator: its output. */
async function hostsListed(): Promise<string> {
  let stdout = '';
  const code = await runCli(['admin', 'hosts', 'list'], {
    stdout: new Writable({
      write(chunk, _encoding, done) {
        stdout += String(chunk);
        done();
      },
    }),
    stderr: new Writable({ write: (_chunk, _encoding, done) => done() }),
    env: { XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'nubis-host-work-cli-')), NUBIS_URL: nubis.url, ADMIN_TOKEN },
  });
  assert.equal(code, 0);
  return stdout;
}

/** Polls `probe` until it answers true, moving the clock a second each time (a retry's back-off). */
async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`${what}: not within 20 s`);
    await nubis.advance(1);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a drain the engine gives up on shows on the host, in the feed and in /metrics until one succeeds', async () => {
  const ctx = withEngine(nubis.running.ctx);
  await drainHost(ctx, 'm1');
  // The member stops answering before the job runs: every attempt at the evacuation fails.
  hosts.set('m1', 'offline');
  const runner = startJobRunner(ctx);
  try {
    await until('the drain given up', async () => (await host('m1')).failure !== null);
    const shown = await host('m1');
    assert.match(shown.failure!, /^drain failed after 2 attempts: Member "m1" is offline$/);
    assert.deepEqual(evacuations, ['m1', 'm1']);
    assert.match(await hostsListed(), /^m1\s.*drain failed after 2 attempts: Member "m1" is offline/m);
    const feed = await nubis.admin('GET', '/admin/events?limit=1000');
    const told = (
      feed.body.events as { type: string; account: number | null; resource: { type: string; uuid: string } }[]
    ).filter((e) => e.type === 'host.drain_failed');
    assert.equal(told.length, 1, JSON.stringify(told));
    assert.deepEqual([told[0]!.resource, told[0]!.account], [{ type: 'host', uuid: 'm1' }, null]);
    assert.match(await metrics(), /^nubis_host_work_failed\{host="m1"\} 1$/m);
    assert.match(await metrics(), /^nubis_host_work_failed\{host="m2"\} 0$/m);
    assert.equal(
      (await ctx.db.selectFrom('compute_jobs').selectAll().execute()).length,
      0,
      'the job is gone once given up',
    );

    // Back: a drain asked again succeeds, and the failure shown is over.
    hosts.set('m1', 'online');
    await drainHost(ctx, 'm1');
    await until('the drain done', async () => (await host('m1')).status === 'evacuated');
    await until('the failure cleared', async () => (await host('m1')).failure === null);
    assert.match(await metrics(), /^nubis_host_work_failed\{host="m1"\} 0$/m);
  } finally {
    await runner.stop();
  }
});
