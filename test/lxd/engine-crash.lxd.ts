// The engine's daemon killed (SIGKILL: a crash of LXD itself) while it makes a server's machine,
// and while it copies a snapshot: once it is back, the job is retried and ends in the truth, one
// machine and one image, never a server shown running with no machine nor a snapshot shown
// completed that the engine lacks. Killed during a create, LXD 5.0 either finishes or rolls the
// instance back (the server ends running), or keeps a record whose storage volume it never made
// and cannot delete (the server ends CreateFailed, told, unbilled, removable): both are true ends,
// and neither makes a second machine nor a disk again behind the owner's back. Nubis talks to the
// engine through a gate that only watches, so the kill comes when the engine has accepted the work
// (its operation runs). Run under the LXD lock (engine-daemon.ts); the daemon is started again
// whatever happens, and the instances this suite made are gone when it ends.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
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
  removeSnapshots,
  serverInfo,
  startLxdInstance,
  TEST_IMAGE,
  testStorage,
} from './support.ts';

const gate = new EngineGate(lxdUrl);
let lxd = engine();
let nubis: TestInstance;
let alice: TestAccount;
const made: string[] = [];
const pool = testStorage.LXD_STORAGE_POOL;

before(async () => {
  await gate.listen();
  gate.open = true;
  // Attempts enough to outlast the daemon's restart (back-offs 1 to 30 s: about 90 s), few enough
  // that a create the engine cannot finish is given up within the test's time.
  nubis = await startLxdInstance({
    LXD_URL: gate.path,
    COMPUTE_OBSERVE_TIMEOUT_SECONDS: '3',
    COMPUTE_JOB_ATTEMPTS: '8',
  });
  alice = await createAccount(nubis);
});

after(async () => {
  await startDaemon();
  await removeServers(nubis, alice.token, made, lxd);
  await removeSnapshots(nubis, alice.token, lxd).catch(() => {});
  await nubis.close();
  await gate.close();
  // What LXD could not delete (a record without its volume) is deleted as an operator would
  // (docs/lxd.md); only this suite's own instances.
  for (const uuid of made) await deleteLeftover(`nubis-${uuid}`);
  const left = (await lxd.get<string[]>('/1.0/instances')).filter((path) => made.some((uuid) => path.includes(uuid)));
  lxd.close();
  assert.deepEqual(left, [], 'the suite leaves no instance of its own behind');
});

/**
 * Deletes an instance of this suite the engine still has; one whose storage folder is not a btrfs
 * subvolume (its volume never made) gets an empty subvolume in its place first, so LXD can delete it.
 */
async function deleteLeftover(name: string): Promise<void> {
  if (!(await lxd.exists(`/1.0/instances/${name}`))) return;
  const folder = `/var/lib/lxd/storage-pools/${pool}/containers/${name}`;
  const subvolume = spawnSync('btrfs', ['subvolume', 'show', folder]).status === 0;
  const exists = spawnSync('test', ['-d', folder]).status === 0;
  if (exists && !subvolume) {
    console.log(`${name}: its folder is no subvolume; replaced by an empty one to delete it`);
    assert.equal(spawnSync('rmdir', [folder]).status, 0, `rmdir ${folder}`);
    const created = spawnSync('btrfs', ['subvolume', 'create', folder], { encoding: 'utf8' });
    assert.equal(created.status, 0, created.stderr);
  }
  await lxd
    .run('DELETE', `/1.0/instances/${name}`)
    .catch((error: Error) => console.log(`${name}: not deleted: ${error.message}`));
  await eventually(`${name} deleted`, 60, async () =>
    (await lxd.exists(`/1.0/instances/${name}`)) ? undefined : true,
  );
}

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

/** The storage volumes of the suite's pool that are the server's (its instance's disk). */
async function volumesOf(uuid: string): Promise<string[]> {
  return (await lxd.get<string[]>(`/1.0/storage-pools/${pool}/volumes`)).filter((path) => path.includes(uuid));
}

/** How many instance creates, and deletes of the server's instance, the gate has passed to the engine. */
function remakes(uuid: string): number {
  return gate.requests.filter(
    (line) => /^POST \/1\.0\/instances(\?|$)/.test(line) || line === `DELETE /1.0/instances/nubis-${uuid}`,
  ).length;
}

/** Waits until Nubis has read the engine's instances `rounds` more times (its reconciliations). */
async function reconciliations(rounds: number): Promise<void> {
  const reads = () => gate.requests.filter((line) => line.startsWith('GET /1.0/instances?recursion=2')).length;
  const from = reads();
  await eventually(`${rounds} reconciliations`, 60, async () => (reads() >= from + rounds ? true : undefined));
}

/** The account's open machine items (server, license) of this server. */
async function billedItems(uuid: string): Promise<JsonBody[]> {
  const list = await nubis.request('GET', '/v1.3/invoice/list', { token: alice.token });
  assert.equal(list.status, 200, JSON.stringify(list.body));
  return (list.body.invoices as JsonBody[]).filter(
    (item) => item.active === 1 && item.resource_id === uuid && ['server', 'license'].includes(item.resource_type),
  );
}

test('the daemon killed during a create: running with one machine, or CreateFailed told; never two, never remade', async () => {
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

  // Either end is the truth: the engine made the machine (retried once it was back), or it kept a
  // record it can neither finish nor delete and the create was given up (COMPUTE_JOB_ATTEMPTS).
  const ended = await eventually('the create ended', 300, async () => {
    const info = await serverInfo(nubis, alice.token, uuid);
    if (info.power === 'running' && condition(info, 'MachinePresent')?.status === 'true') return info;
    return condition(info, 'MachinePresent')?.reason === 'CreateFailed' ? info : undefined;
  }).catch(async (error: unknown) => {
    const seen = await nubis.admin('GET', `/admin/servers/${uuid}`);
    const machine = await lxd.get(`/1.0/instances/nubis-${uuid}?recursion=1`).catch((e: Error) => e.message);
    console.log(`not ended: ${JSON.stringify(seen.body)}\nengine: ${JSON.stringify(machine)}`);
    throw error;
  });
  const operator = (await nubis.admin('GET', `/admin/servers/${uuid}`)).body;
  console.log(
    `the create ended ${ended.power}: ${JSON.stringify(ended.conditions)}; engine_error: ${operator.engine_error}`,
  );
  const remadeBefore = remakes(uuid);
  // Never a second machine, nor a second disk.
  assert.ok((await instancesOf(uuid)).length <= 1, `one machine at most: ${await instancesOf(uuid)}`);
  assert.ok((await volumesOf(uuid)).length <= 1, `one disk at most: ${await volumesOf(uuid)}`);

  if (ended.power === 'running') {
    assert.equal(condition(ended, 'EngineReachable')?.status, 'true');
    assert.equal(condition(ended, 'Degraded')?.status, 'false', JSON.stringify(ended.conditions));
    assert.deepEqual(await instancesOf(uuid), [`/1.0/instances/nubis-${uuid}`], 'one machine');
    assert.equal((await volumesOf(uuid)).length, 1, 'one disk');
    const instance = await lxd.get<{ status: string; created_at: string; config: Record<string, string> }>(
      `/1.0/instances/nubis-${uuid}`,
    );
    assert.equal(instance.status, 'Running', 'the engine runs it');
    assert.equal(
      instance.config['user.nubis.first-boot'],
      instance.config['user.nubis.disk'],
      'its first boot written',
    );
    // Data written now is still there after reconciliations: the disk is not made again.
    const marker = await lxd.exec(`nubis-${uuid}`, ['/bin/sh', '-c', 'echo kept > /root/marker && sync && echo ok']);
    assert.equal(marker.stdout.trim(), 'ok', marker.stderr);
    await reconciliations(3);
    const kept = await lxd.exec(`nubis-${uuid}`, ['cat', '/root/marker']);
    assert.equal(kept.stdout.trim(), 'kept', 'the disk written is the disk kept');
    const still = await lxd.get<{ created_at: string }>(`/1.0/instances/nubis-${uuid}`);
    assert.equal(still.created_at, instance.created_at, 'the same machine');
    assert.equal((await serverInfo(nubis, alice.token, uuid)).power, 'running');
    assert.equal(remakes(uuid), remadeBefore, 'no machine made or deleted since');
  } else {
    // Told to the owner, in the owner's words; the engine's own text for the operator.
    assert.equal(ended.power, 'stopped');
    assert.equal(condition(ended, 'MachinePresent')?.status, 'false');
    assert.match(
      condition(ended, 'MachinePresent')?.message,
      /reinstall, rebuild or restore it to try again, or remove it/,
    );
    assert.doesNotMatch(condition(ended, 'MachinePresent')?.message, /\/var\/lib/, 'no host detail');
    assert.equal(condition(ended, 'Degraded')?.status, 'true');
    assert.match(operator.engine_error, /failed after 8 attempts/);
    assert.deepEqual(await billedItems(uuid), [], 'no machine billed');
    // Given up: nothing made or deleted behind the owner's back afterwards.
    await reconciliations(3);
    assert.equal(condition(await serverInfo(nubis, alice.token, uuid), 'MachinePresent')?.reason, 'CreateFailed');
    assert.equal(remakes(uuid), remadeBefore, 'no machine made or deleted since');
    // The owner's way out: removing it.
    const removed = await nubis.request('DELETE', `/v1.3/server/remove/${uuid}`, { token: alice.token });
    assert.equal(removed.status, 204, JSON.stringify(removed.body));
    const gone = await nubis.request('GET', `/v1.3/server/info/${uuid}`, { token: alice.token });
    assert.equal(gone.status, 404, 'removed');
  }
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

/** The snapshot cases' own server, made running while the engine is up (the create case's may have none). */
let copied: string | undefined;
async function copiedServer(): Promise<string> {
  if (copied) return copied;
  const created = await nubis.request('POST', '/v1.3/server/create', {
    token: alice.token,
    body: { hostname: 'copied.example.com', label: 'copied', region: 101, image: TEST_IMAGE, plan: 1 },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  copied = created.body.uuid as string;
  made.push(copied);
  await awaitPower(nubis, alice.token, copied, 'running', 180);
  return copied;
}

test('the daemon killed during a snapshot: the copy ends completed with its image, or failed and told', async () => {
  const uuid = await copiedServer();
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
  const uuid = await copiedServer();
  const killed = new Promise<void>((resolve, reject) =>
    gate.before(/^DELETE \/1\.0\/instances\/nubis-[^/ ]+\/snapshots\//m, () => killDaemon().then(resolve, reject)),
  );
  await snapshotOf(uuid, 'crash cleanup', killed);
});
