// Reconciliation with an engine that has several hosts, without a cluster: a stand-in engine
// reports each machine's host and each host's status, and one reconciliation round is run on
// the instance's context with it. A host reported for a machine is its server's host; another
// host later is a server.moved event; a host reported offline loses its servers (HostLost, told
// once, billing paused) and, back online, they are present and billed again. What the owner and
// the operator see is read over HTTP.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, mailsTo, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, serverInfo } from '../../test/support/servers.ts';
import type { Platform } from '../platform/context.ts';
import type { Engine, EngineObservation, HostReport } from './compute-driver.ts';
import { reconcile, startJobRunner } from './job-runner.ts';
import { drainHost, restoreHost } from '../hosts/host.service.ts';
import { observedBy, unmodelled } from '../../test/support/engine-stand-in.ts';

let nubis: TestInstance;
let alice: TestAccount;

before(async () => {
  nubis = await startTestInstance();
  alice = await createAccount(nubis);
});
after(() => nubis.close());

/** What the stand-in engine reports: each host's status, and the host of each server's machine. */
const world = {
  hosts: new Map<string, HostReport['status']>(),
  placed: new Map<string, string>(),
  /** Where an evacuation moved each machine from. */
  origin: new Map<string, string>(),
  calls: [] as string[],
};

const standIn: Engine = {
  ...unmodelled,
  async hosts() {
    return [...world.hosts].map(([name, status]) => ({
      name,
      status,
      message: status === 'offline' ? 'No heartbeat' : 'Fully operational',
      groups: ['default'],
      capacity: { vcpus: 8, memoryBytes: 16 * 1024 ** 3, diskBytes: null },
    }));
  },
  ...observedBy(
    () => world.placed.keys(),
    (uuid, spec): EngineObservation | undefined => {
      const host = world.placed.get(uuid);
      if (!host || !spec) return undefined;
      return {
        power: 'running',
        traffic: null,
        usage: null,
        drift: [],
        diskGeneration: spec.disk.generation,
        powerGeneration: spec.powerGeneration,
        host,
      };
    },
  ),
  async converge() {
    return {};
  },
  async produce() {
    return {};
  },
  // As LXD's evacuation: the member's machines move to another online member, and back on restore.
  async evacuateHost(name) {
    const to = [...world.hosts].find(([other, status]) => other !== name && status === 'online')![0];
    for (const [uuid, host] of world.placed)
      if (host === name) {
        world.placed.set(uuid, to);
        world.origin.set(uuid, name);
      }
    world.hosts.set(name, 'evacuated');
    world.calls.push(`evacuate ${name}`);
  },
  async restoreHost(name) {
    world.hosts.set(name, 'online');
    for (const [uuid, from] of world.origin)
      if (from === name) {
        world.placed.set(uuid, name);
        world.origin.delete(uuid);
      }
    world.calls.push(`restore ${name}`);
  },
  close() {},
};

/** The instance's context with the stand-in as its engine (everything else as it runs). */
function withEngine(ctx: Platform): Platform {
  const compute = new Proxy(ctx.compute, {
    get: (target, key) => (key === 'engine' ? standIn : Reflect.get(target, key)),
  });
  return { ...ctx, compute };
}

async function operatorView(uuid: string) {
  const answer = await nubis.admin('GET', `/admin/servers/${uuid}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body as { host: string | null; lost: boolean; power: string };
}

async function events(uuid: string, type: string) {
  const answer = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
  return (answer.body.events as { type: string; resource: { uuid: string }; data: Record<string, unknown> }[]).filter(
    (e) => e.type === type && e.resource.uuid === uuid,
  );
}

async function machinesBilled(): Promise<number> {
  const list = await nubis.request('GET', '/v1.3/invoice/list', { token: alice.token });
  return (list.body.invoices as { active: number; resource_type: string }[]).filter(
    (item) => item.active === 1 && item.resource_type === 'server',
  ).length;
}

test('hosts reported, a move told, a host offline loses its servers within one round, and back again', async () => {
  const ctx = withEngine(nubis.running.ctx);
  const a = await deployServer(nubis, alice.token, { label: 'on m1' });
  const b = await deployServer(nubis, alice.token, { label: 'moving' });
  // As an engine's servers start: no host reported yet.
  await ctx.db.updateTable('servers').set({ host: null }).execute();
  world.hosts.set('m1', 'online').set('m2', 'online');
  world.placed.set(a.uuid, 'm1').set(b.uuid, 'm1');

  await reconcile(ctx);
  assert.equal((await operatorView(a.uuid)).host, 'm1');
  assert.equal((await operatorView(b.uuid)).host, 'm1');
  assert.equal((await events(b.uuid, 'server.moved')).length, 0, 'a first report is no move');

  world.placed.set(b.uuid, 'm2');
  await reconcile(ctx);
  assert.equal((await operatorView(b.uuid)).host, 'm2');
  assert.deepEqual(
    (await events(b.uuid, 'server.moved')).map((e) => e.data),
    [{ from: 'm1', to: 'm2' }],
  );

  const billed = await machinesBilled();
  world.hosts.set('m1', 'offline');
  await reconcile(ctx);
  const lost = await serverInfo(nubis, alice.token, a.uuid);
  assert.equal(lost.power, 'stopped');
  const present = (lost.conditions as { type: string; status: string; reason: string; message: string }[]).find(
    (c) => c.type === 'MachinePresent',
  )!;
  assert.deepEqual([present.status, present.reason], ['false', 'HostLost']);
  assert.match(present.message, /host m1/);
  assert.equal((await operatorView(a.uuid)).lost, true);
  assert.equal((await operatorView(b.uuid)).lost, false, 'a server on another host is not touched');
  assert.equal(await machinesBilled(), billed - 1);
  await reconcile(ctx);
  assert.equal((await events(a.uuid, 'server.lost')).length, 1, 'told once');
  assert.equal((await mailsTo(nubis, alice.email)).filter((m) => /on m1 is lost/.test(m.subject)).length, 1);

  world.hosts.set('m1', 'online');
  await reconcile(ctx);
  const back = await serverInfo(nubis, alice.token, a.uuid);
  assert.equal(back.power, 'running');
  assert.equal((await operatorView(a.uuid)).lost, false);
  assert.equal(await machinesBilled(), billed, 'billed again once its host is back');
});

/** Polls `probe` (every 50 ms, at most 20 s) until it answers true. */
async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 20_000;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`${what}: not within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a drain is a job after the commit: the engine evacuates once, each moved server is told; restore brings it back', async () => {
  const ctx = withEngine(nubis.running.ctx);
  world.hosts.clear();
  world.hosts.set('m1', 'online').set('m2', 'online');
  const server = await deployServer(nubis, alice.token, { label: 'drained' });
  await ctx.db.updateTable('servers').set({ host: null }).where('uuid', '=', server.uuid).execute();
  world.placed.set(server.uuid, 'm1');
  await reconcile(ctx);
  assert.equal((await operatorView(server.uuid)).host, 'm1');
  world.calls.length = 0;

  // Recorded twice before it runs: one job, one evacuation.
  await drainHost(ctx, 'm1');
  await drainHost(ctx, 'm1');
  assert.deepEqual(world.calls, [], 'nothing done in the transaction');
  const runner = startJobRunner(ctx);
  try {
    await until('the server moved', async () => (await operatorView(server.uuid)).host === 'm2');
    await until(
      'the job done',
      async () => (await ctx.db.selectFrom('compute_jobs').selectAll().execute()).length === 0,
    );
    assert.deepEqual(world.calls, ['evacuate m1']);
    assert.deepEqual(
      (await events(server.uuid, 'server.moved')).map((e) => e.data),
      [{ from: 'm1', to: 'm2' }],
    );
    await restoreHost(ctx, 'm1');
    await until('the server back', async () => (await operatorView(server.uuid)).host === 'm1');
    assert.deepEqual(world.calls, ['evacuate m1', 'restore m1']);
    assert.deepEqual((await events(server.uuid, 'server.moved')).map((e) => e.data).at(-1), { from: 'm2', to: 'm1' });
  } finally {
    // The stand-in is not closed by the runner's stop: it holds nothing.
    await runner.stop();
  }
});
