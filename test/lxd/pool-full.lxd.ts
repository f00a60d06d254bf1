// The engine's storage pool full during a create: the owner sees the create failed, with a
// condition saying why; billing stops (no machine is billed that does not exist); the job is not
// retried beyond its bounded attempts (no silent loop). On a pool of this suite's own (a small
// btrfs loop file, filled up), so no other suite's disks are touched.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, test } from 'node:test';
import type { JsonBody } from '../support/instance.ts';
import { engine, eventually, lxdSuite, serverInfo } from './support.ts';

const pool = 'nubis-full-test';
const mount = `/var/lib/lxd/storage-pools/${pool}`;
/** The pool's own client: it is made before the suite's Nubis starts and dropped after it stops. */
const lxd = engine();

async function dropPool(): Promise<void> {
  if (!(await lxd.exists(`/1.0/storage-pools/${pool}`))) return;
  spawnSync('rm', ['-f', `${mount}/ballast`]);
  // An image's volume the engine unpacked there goes first: a pool in use is not deleted.
  const volumes = await lxd.get<string[]>(`/1.0/storage-pools/${pool}/volumes`);
  for (const volume of volumes) await lxd.run('DELETE', volume).catch(() => {});
  await lxd.run('DELETE', `/1.0/storage-pools/${pool}`);
}

await dropPool();
await lxd.run('POST', '/1.0/storage-pools', { body: { name: pool, driver: 'btrfs', config: { size: '256MiB' } } });
// Full: a file takes what the pool has left (dd stops at "No space left on device").
spawnSync('dd', ['if=/dev/zero', `of=${mount}/ballast`, 'bs=1M']);
spawnSync('sync');
const { nubis, alice, createServer } = await lxdSuite({ env: { LXD_STORAGE_POOL: pool, COMPUTE_JOB_ATTEMPTS: '3' } });
after(async () => {
  await dropPool();
  lxd.close();
});

const condition = (info: JsonBody, type: string) =>
  (info.conditions as JsonBody[] | undefined)?.find((c) => c.type === type);

test('a create on a full pool is shown failed with its reason, unbilled, and not retried on its own', async () => {
  const uuid = (await createServer({ hostname: 'full.example.com', label: 'full' })).uuid as string;

  const failed = await eventually('the create given up', 120, async () => {
    const server = (await nubis.admin('GET', `/admin/servers/${uuid}`)).body;
    return server.engine_error ? server : undefined;
  });
  console.log(`engine error: ${failed.engine_error}`);
  assert.match(failed.engine_error, /failed after 3 attempts/);

  // The owner sees it, with the engine's reason.
  const shown = await eventually('the failure shown to the owner', 10, async () => {
    const info = await serverInfo(nubis, alice.token, uuid);
    return condition(info, 'MachinePresent')?.reason === 'CreateFailed' ? info : undefined;
  });
  console.log(`shown: ${shown.power} ${JSON.stringify(shown.conditions)}`);
  assert.equal(shown.power, 'stopped');
  assert.equal(condition(shown, 'MachinePresent')?.status, 'false');
  assert.match(condition(shown, 'MachinePresent')?.message, /storage is full/, 'why, in the owner’s words');
  assert.doesNotMatch(condition(shown, 'MachinePresent')?.message, /\/var\/lib/, 'no host detail');
  assert.equal(condition(shown, 'Degraded')?.status, 'true');
  assert.equal(await lxd.exists(`/1.0/instances/nubis-${uuid}`), false, 'no machine');

  // Billing stops: no machine is billed that does not exist.
  const list = await nubis.request('GET', '/v1.3/invoice/list', { token: alice.token });
  assert.equal(list.status, 200, JSON.stringify(list.body));
  const billed = (list.body.invoices as JsonBody[]).filter(
    (item) => item.active === 1 && ['server', 'license'].includes(item.resource_type),
  );
  assert.deepEqual(billed, [], 'no machine billed');

  // Given up once, told once: no retry loop behind the owner's back.
  const events = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
  const endings = (events.body.events as JsonBody[]).filter(
    (e) => e.resource.uuid === uuid && e.type === 'server.power' && e.data.error,
  );
  assert.equal(endings.length, 1, JSON.stringify(endings));
  // The owner's start is refused while there is no machine: a reinstall makes one, or a removal.
  const start = await nubis.request('PATCH', '/v1.3/server/start', { token: alice.token, body: { server_id: uuid } });
  assert.equal(start.status, 409, JSON.stringify(start.body));
});
