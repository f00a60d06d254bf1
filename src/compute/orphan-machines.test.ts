// Issue 34: the engine after a restore of an older backup of Nubis's database. The engine (a
// stand-in on the emulator: the simulated driver has none) still runs a machine made after the
// backup, whose server the database no longer knows, and no longer runs the machine of a server
// removed after the backup. Reconciliation shows the second as lost and reports the first (the
// admin list, the gauge), never removing it; the operator's removal queues the engine's work.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer } from '../../test/support/servers.ts';
import type { Engine, EngineObservation } from './compute-driver.ts';
import { reconcile } from './job-runner.ts';
import { observedBy, unmodelled } from '../../test/support/engine-stand-in.ts';

const METRICS_TOKEN = 'orphans-metrics-0123456789';

describe('machines the engine has and the database does not (a restored older database)', () => {
  let nubis: TestInstance;
  let alice: TestAccount;
  /** What the stand-in engine runs, by server uuid. */
  const machines = new Map<string, EngineObservation>();
  const engine = {
    ...unmodelled,
    ...observedBy(
      () => machines.keys(),
      (uuid) => machines.get(uuid),
    ),
    converge: async () => ({}),
    produce: async () => ({}),
    hosts: async () => [],
    evacuateHost: async () => {},
    restoreHost: async () => {},
    close() {},
  } satisfies Engine;

  before(async () => {
    nubis = await startTestInstance({ METRICS_TOKEN });
    alice = await createAccount(nubis);
  });
  after(async () => {
    (nubis.running.ctx.compute as { engine: Engine | null }).engine = null;
    await nubis.close();
  });

  const gauge = async () => {
    const answer = await fetch(`${nubis.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    return Number(/^nubis_machines_orphaned (\d+)$/m.exec(await answer.text())?.[1]);
  };

  test('the lost server shows lost, the orphan is reported and kept, and goes only when the operator says', async () => {
    // In the backup: a server whose machine was removed after it.
    const kept = await deployServer(nubis, alice.token, { hostname: 'kept.example.com', label: 'kept' });
    const keptUuid = kept.uuid;
    const { disk_generation } = await nubis.running.ctx.db
      .selectFrom('servers')
      .select('disk_generation')
      .where('uuid', '=', keptUuid)
      .executeTakeFirstOrThrow();
    const running: EngineObservation = { power: 'running', traffic: null, usage: null, drift: [] };
    machines.set(keptUuid, { ...running, instance: `nubis-${keptUuid}`, diskGeneration: disk_generation });
    (nubis.running.ctx.compute as { engine: Engine | null }).engine = engine;
    await reconcile(nubis.running.ctx);

    // Restored: that machine is gone; one made after the backup runs, its server unknown.
    machines.delete(keptUuid);
    const orphan = randomUUID();
    machines.set(orphan, { ...running, instance: `nubis-${orphan}` });
    await reconcile(nubis.running.ctx);
    await reconcile(nubis.running.ctx);

    const info = await nubis.request('GET', `/v1.3/server/info/${keptUuid}`, { token: alice.token });
    const server = info.body.server ?? info.body;
    const present = (server.conditions as { type: string; status: string; reason: string }[]).find(
      (c) => c.type === 'MachinePresent',
    );
    assert.equal(present?.status, 'false', JSON.stringify(server.conditions));
    assert.equal(present?.reason, 'InstanceMissing');

    const listed = await nubis.admin('GET', '/admin/machines/orphans');
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.orphans.map((o: Record<string, unknown>) => [o.uuid, o.instance, o.power, o.removing]),
      [[orphan, `nubis-${orphan}`, 'running', false]],
    );
    assert.equal(await gauge(), 1);
    // Kept: nothing queued for it on its own.
    const queued = await nubis.running.ctx.db.selectFrom('compute_jobs').select('line').execute();
    assert.ok(!queued.some((job) => job.line === orphan), JSON.stringify(queued));

    // Only a machine reported as orphaned can be removed this way.
    const unknown = await nubis.admin('DELETE', `/admin/machines/orphans/${randomUUID()}`);
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    const aServer = await nubis.admin('DELETE', `/admin/machines/orphans/${keptUuid}`);
    assert.equal(aServer.status, 404, JSON.stringify(aServer.body));

    const removed = await nubis.admin('DELETE', `/admin/machines/orphans/${orphan}`);
    assert.equal(removed.status, 202, JSON.stringify(removed.body));
    assert.equal(removed.body.removing, true);
    const jobs = await nubis.running.ctx.db.selectFrom('compute_jobs').select(['line', 'action']).execute();
    assert.ok(
      jobs.some((job) => job.line === orphan && job.action === 'converge'),
      JSON.stringify(jobs),
    );
    // Still listed, as removing, while the engine has it.
    await reconcile(nubis.running.ctx);
    const removing = await nubis.admin('GET', '/admin/machines/orphans');
    assert.deepEqual(
      removing.body.orphans.map((o: Record<string, unknown>) => [o.uuid, o.removing]),
      [[orphan, true]],
    );

    // The job ran (the engine removed it): the next round finds nothing.
    machines.delete(orphan);
    await reconcile(nubis.running.ctx);
    assert.deepEqual((await nubis.admin('GET', '/admin/machines/orphans')).body.orphans, []);
    assert.equal(await gauge(), 0);
  });
});
