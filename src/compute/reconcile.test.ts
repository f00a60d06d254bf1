// Reconciliation listens rather than polls (issue 38): with an engine that tells what changed (the
// LXD driver's informer; here a stand-in that answers as it does), a round reads only the machines
// whose events were heard; a round with nothing heard reads none; a dropped event stream and an
// outage are followed by a full read. The failure truth holds: a machine stopped or deleted behind
// Nubis's back shows within one round, an engine out of reach shows as such.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, serverInfo } from '../../test/support/servers.ts';
import { EngineStandIn, standInDriver } from '../../test/support/engine-stand-in.ts';
import type { Platform } from '../platform/context.ts';
import { reconcile } from './job-runner.ts';
import { listOrphanMachines } from './orphan-machines.ts';
import { randomUUID } from 'node:crypto';

let nubis: TestInstance;
let alice: TestAccount;
let ctx: Platform;
const engine = new EngineStandIn();
const servers: string[] = [];

before(async () => {
  nubis = await startTestInstance();
  alice = await createAccount(nubis);
  for (let i = 0; i < 6; i++) servers.push((await deployServer(nubis, alice.token)).uuid);
  // The instance's own storage and clock, with the stand-in as its engine (no job runner: rounds are run here).
  ctx = { ...nubis.running.ctx, compute: standInDriver(engine) };
  for (const uuid of servers) engine.set(uuid, { power: 'running', diskGeneration: 0, powerGeneration: 0 });
});
after(() => nubis.close());

type Condition = { type: string; status: string; reason: string };
const condition = async (uuid: string, type: string) =>
  ((await serverInfo(nubis, alice.token, uuid)).conditions as Condition[]).find((c) => c.type === type);

/** One round, and what it read of the engine. */
async function round(): Promise<{ read: number; calls: number }> {
  engine.resetCounts();
  await reconcile(ctx);
  return { read: engine.read, calls: engine.calls };
}

test('a round reads only the machines whose events were heard, and none when nothing changed', async () => {
  // The first round has heard nothing yet: it reads every machine.
  assert.deepEqual(await round(), { read: servers.length, calls: 1 });
  assert.equal((await condition(servers[0]!, 'MachinePresent'))?.status, 'true');

  // Nothing changed: the engine is asked whether it answers, and no machine is read.
  assert.deepEqual(await round(), { read: 0, calls: 1 });

  // A machine stopped outside Nubis: its event names it, the round reads it alone and shows it.
  engine.set(servers[1]!, { power: 'stopped', diskGeneration: 0, powerGeneration: 0 });
  assert.deepEqual(await round(), { read: 1, calls: 1 });
  assert.equal((await serverInfo(nubis, alice.token, servers[1]!)).power, 'stopped');
  assert.equal((await serverInfo(nubis, alice.token, servers[2]!)).power, 'running');

  // A machine deleted behind Nubis's back is lost within one round (its deleted event).
  engine.delete(servers[2]!);
  assert.deepEqual(await round(), { read: 0, calls: 1 });
  assert.equal((await condition(servers[2]!, 'MachinePresent'))?.reason, 'InstanceMissing');
});

test('a dropped event stream, the resync and an outage are each followed by a full read', async () => {
  engine.dropStream();
  assert.deepEqual(await round(), { read: engine.machines.size, calls: 1 });
  assert.deepEqual(await round(), { read: 0, calls: 1 });

  // Out of reach: the cheap question fails, every server shows it; the events may have been missed.
  engine.unreachable = true;
  await round();
  assert.equal((await condition(servers[0]!, 'EngineReachable'))?.status, 'false');
  assert.equal((await serverInfo(nubis, alice.token, servers[0]!)).power, 'unknown');
  engine.unreachable = false;
  // Back: the next round reads everything, though the stream told of no change.
  assert.deepEqual(await round(), { read: engine.machines.size, calls: 1 });
  assert.equal((await condition(servers[0]!, 'EngineReachable'))?.status, 'true');
  assert.equal((await serverInfo(nubis, alice.token, servers[0]!)).power, 'running');
  assert.deepEqual(await round(), { read: 0, calls: 1 });
});

test('a host gone offline, of which no event tells, shows its machines lost within one round', async () => {
  const onB = servers[4]!;
  engine.set(onB, { power: 'running', diskGeneration: 0, powerGeneration: 0, host: 'host-b' });
  await round();
  assert.deepEqual(await round(), { read: 0, calls: 1 });

  // The member stops answering: its machines send no event; the engine's hosts list says it.
  engine.offline.add('host-b');
  await round();
  assert.equal((await condition(onB, 'MachinePresent'))?.reason, 'HostLost');
  assert.equal((await condition(servers[0]!, 'MachinePresent'))?.status, 'true');
  // Then rounds are quiet again: the loss is shown, nothing more to read.
  assert.deepEqual(await round(), { read: 0, calls: 1 });
});

test('a round that reads only what changed keeps the orphan list true: one made is listed, one removed goes', async () => {
  const first = randomUUID();
  const second = randomUUID();
  engine.set(first, { power: 'running', diskGeneration: 0, powerGeneration: 0 });
  await round();
  assert.deepEqual(
    listOrphanMachines(ctx).map((o) => o.uuid),
    [first],
  );
  engine.set(second, { power: 'running', diskGeneration: 0, powerGeneration: 0 });
  await round();
  assert.deepEqual(
    listOrphanMachines(ctx)
      .map((o) => o.uuid)
      .sort(),
    [first, second].sort(),
  );
  // The operator's removal reaches the engine: its deleted event is heard, and only it leaves the list.
  engine.delete(first);
  assert.deepEqual(await round(), { read: 0, calls: 1 });
  assert.deepEqual(
    listOrphanMachines(ctx).map((o) => o.uuid),
    [second],
  );
  engine.delete(second);
  await round();
  assert.deepEqual(listOrphanMachines(ctx), []);
});

test('a full read in pages of two reconciles every server, finds orphans on every page and marks every server', async () => {
  engine.offline.clear();
  // Behind Nubis's back, every machine stopped and one no server owns was made; then a resync.
  for (const uuid of servers) engine.set(uuid, { power: 'stopped', diskGeneration: 0, powerGeneration: 0 });
  const orphan = randomUUID();
  engine.set(orphan, { power: 'running', diskGeneration: 0, powerGeneration: 0 });
  engine.dropStream();
  engine.resetCounts();
  await reconcile(ctx, 2);
  // One call of the engine, read a page at a time: the six servers on three pages, and the orphan.
  assert.deepEqual({ read: engine.read, calls: engine.calls }, { read: servers.length + 1, calls: 1 });
  for (const uuid of servers) assert.equal((await serverInfo(nubis, alice.token, uuid)).power, 'stopped', uuid);
  assert.deepEqual(
    listOrphanMachines(ctx).map((o) => o.uuid),
    [orphan],
  );

  // An outage marks every page's servers, and the round after it every one reachable again.
  engine.unreachable = true;
  await reconcile(ctx, 2);
  for (const uuid of servers) assert.equal((await condition(uuid, 'EngineReachable'))?.status, 'false', uuid);
  engine.unreachable = false;
  await reconcile(ctx, 2);
  for (const uuid of servers) assert.equal((await condition(uuid, 'EngineReachable'))?.status, 'true', uuid);
  assert.deepEqual(
    listOrphanMachines(ctx).map((o) => o.uuid),
    [orphan],
  );
  engine.delete(orphan);
});
