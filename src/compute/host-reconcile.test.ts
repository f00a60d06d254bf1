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
import { reconcile } from './job-runner.ts';

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
};

const standIn: Engine = {
  async hosts() {
    return [...world.hosts].map(([name, status]) => ({
      name,
      status,
      message: status === 'offline' ? 'No heartbeat' : 'Fully operational',
      groups: ['default'],
      capacity: { vcpus: 8, memoryBytes: 16 * 1024 ** 3, diskBytes: null },
    }));
  },
  async observe(specs) {
    const seen = new Map<string, EngineObservation>();
    for (const [uuid, spec] of specs) {
      const host = world.placed.get(uuid);
      if (!host) continue;
      seen.set(uuid, {
        power: 'running',
        traffic: null,
        usage: null,
        drift: [],
        diskGeneration: spec.disk.generation,
        powerGeneration: spec.powerGeneration,
        host,
      });
    }
    return seen;
  },
  async converge() {
    return {};
  },
  async produce() {
    return {};
  },
  async evacuateHost() {},
  async restoreHost() {},
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
