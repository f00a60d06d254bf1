// The engine's daemon killed (SIGKILL: a crash of LXD itself) while it makes a server's machine,
// and while it copies a snapshot: once it is back, the job is retried and ends in the truth, one
// machine and one image, never a server shown running with no machine nor a snapshot shown
// completed that the engine lacks. Nubis talks to the engine through a gate that only watches, so
// the kill comes when the engine has accepted the work (its operation runs). Run under the LXD
// lock (engine-daemon.ts); the daemon is started again whatever happens.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { JsonBody, TestInstance } from '../support/instance.ts';
import { createAccount, type TestAccount } from '../support/accounts.ts';
import { killDaemon, startDaemon } from './engine-daemon.ts';
import {
  awaitPower,
  EngineGate,
  engine,
  eventually,
  lxdUrl,
  removeServers,
  serverInfo,
  startLxdInstance,
  TEST_IMAGE,
} from './support.ts';

const gate = new EngineGate(lxdUrl);
let lxd = engine();
let nubis: TestInstance;
let alice: TestAccount;
const made: string[] = [];

before(async () => {
  await gate.listen();
  gate.open = true;
  nubis = await startLxdInstance({ LXD_URL: gate.path, COMPUTE_OBSERVE_TIMEOUT_SECONDS: '3' });
  alice = await createAccount(nubis);
});

after(async () => {
  await startDaemon();
  await removeServers(nubis, alice.token, made, lxd);
  await nubis.close();
  await gate.close();
  lxd.close();
});

/**
 * The daemon killed when `killed` says (a request accepted or about to be sent), what is shown
 * while it is down checked, and the daemon started again (always).
 */
async function crash(killed: Promise<void>, whileDown: () => Promise<void>): Promise<void> {
  try {
    await Promise.race([
      killed,
      new Promise((_, reject) => setTimeout(() => reject(new Error('the work never reached the engine')), 180_000)),
    ]);
    await whileDown();
  } finally {
    await startDaemon();
    // The suite's own client held connections to the dead daemon.
    lxd.close();
    lxd = engine();
  }
}

const condition = (info: JsonBody, type: string) =>
  (info.conditions as JsonBody[] | undefined)?.find((c) => c.type === type);

async function instancesOf(uuid: string): Promise<string[]> {
  return (await lxd.get<string[]>('/1.0/instances')).filter((path) => path.includes(uuid));
}

test('the daemon killed during a create: retried once it is back, one machine, running', async () => {
  const accepted = gate.accepted(/^POST \/1\.0\/instances(\?\S*)? HTTP/m);
  const created = await nubis.request('POST', '/v1.3/server/create', {
    token: alice.token,
    body: { hostname: 'crash.example.com', label: 'crash', region: 101, image: TEST_IMAGE, plan: 1 },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const uuid = created.body.uuid as string;
  made.push(uuid);
  await crash(accepted.then(killDaemon), async () => {
    const info = await serverInfo(nubis, alice.token, uuid);
    assert.notEqual(info.power, 'running', 'not shown running while the engine is down');
  });

  const running = await awaitPower(nubis, alice.token, uuid, 'running', 240).catch(async (error: unknown) => {
    const seen = await nubis.admin('GET', `/admin/servers/${uuid}`);
    const machine = await lxd.get(`/1.0/instances/nubis-${uuid}?recursion=1`).catch((e: Error) => e.message);
    console.log(`not running: ${JSON.stringify(seen.body)}\nengine: ${JSON.stringify(machine)}`);
    throw error;
  });
  assert.equal(condition(running, 'MachinePresent')?.status, 'true');
  assert.equal(condition(running, 'EngineReachable')?.status, 'true');
  assert.equal(condition(running, 'Degraded')?.status, 'false', JSON.stringify(running.conditions));
  assert.deepEqual(await instancesOf(uuid), [`/1.0/instances/nubis-${uuid}`], 'one machine');
  const instance = await lxd.get<{ status: string; config: Record<string, string> }>(`/1.0/instances/nubis-${uuid}`);
  assert.equal(instance.status, 'Running', 'the engine runs it');
  assert.equal(instance.config['user.nubis.first-boot'], instance.config['user.nubis.disk'], 'its first boot written');
});

/** A snapshot taken while the engine is killed when `killed` resolves (its trap set beforehand). */
async function snapshotOf(uuid: string, name: string, killed: Promise<void>) {
  await awaitPower(nubis, alice.token, uuid, 'running');
  const taken = await nubis.request('POST', '/v1.3/snapshot/create', {
    token: alice.token,
    body: { name, server_id: uuid },
  });
  assert.equal(taken.status, 201, JSON.stringify(taken.body));
  const snapshot = taken.body.uuid as string;
  const shown = async () => {
    const list = await nubis.request('GET', '/v1.3/snapshot/list', { token: alice.token });
    return list.body.snapshots.find((s: JsonBody) => s.uuid === snapshot) as JsonBody;
  };
  await crash(killed, async () => {
    assert.equal((await shown()).status, 'processing', 'not shown completed while the engine is down');
  });

  const ended = await eventually('the copy ended', 300, async () => {
    const entry = await shown();
    return entry.status === 'processing' ? undefined : entry;
  });
  const alias = `/1.0/images/aliases/nubis-snap-${snapshot}`;
  if (ended.status === 'completed') {
    assert.equal(await lxd.exists(alias), true, 'the engine holds the image shown completed');
  } else {
    assert.equal(ended.status, 'failed');
    const events = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
    assert.ok(
      events.body.events.some((e: JsonBody) => e.type === 'snapshot.failed' && e.resource.uuid === snapshot),
      'a snapshot.failed event',
    );
    await eventually('no image left', 60, async () => ((await lxd.exists(alias)) ? undefined : true));
  }
  // The copy's engine snapshot (the image's source) is not left on the server's machine.
  await eventually('no engine snapshot left', 60, async () => {
    const left = await lxd.get<string[]>(`/1.0/instances/nubis-${uuid}/snapshots`);
    return left.length === 0 ? true : undefined;
  });
  // Shown running again once reconciliation hears from the engine.
  await awaitPower(nubis, alice.token, uuid, 'running', 30);
  console.log(`snapshot ${name} after the crash: ${ended.status}`);
}

test('the daemon killed during a snapshot: the copy ends completed with its image, or failed and told', async () => {
  const uuid = made[0]!;
  // A disk that takes the engine a while to copy: the kill comes while it compresses.
  const ballast = await lxd.exec(`nubis-${uuid}`, [
    '/bin/sh',
    '-c',
    'head -c 150000000 /dev/urandom > /root/ballast && sync && echo written',
  ]);
  assert.equal(ballast.stdout.trim(), 'written', ballast.stderr);
  const accepted = gate.accepted(/^POST \/1\.0\/images HTTP/m);
  await snapshotOf(uuid, 'crash copy', accepted.then(killDaemon));
});

test('the daemon killed once the copy is made, before its engine snapshot is removed: none is left', async () => {
  const uuid = made[0]!;
  const killed = new Promise<void>((resolve, reject) =>
    gate.before(/^DELETE \/1\.0\/instances\/nubis-[^/ ]+\/snapshots\//m, () => killDaemon().then(resolve, reject)),
  );
  await snapshotOf(uuid, 'crash cleanup', killed);
});
