// The compute seam on a real engine, against `nubis serve` processes sharing one data directory
// (so Nubis can be restarted, and killed): traffic is a meter that a stop and start and a restart
// of Nubis do not lower; limits and NICs changed in the engine are put back by one reconciliation,
// with a `server.drift` event; a rebuild whose process is killed halfway converges when Nubis
// comes back, without making the disk a second time.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createAccount, type TestAccount } from '../support/accounts.ts';
import type { JsonBody } from '../support/instance.ts';
import { type Nubis, startNubis, stopNubis } from './nubis-process.ts';
import {
  awaitPower,
  engine,
  eventually,
  publicAddress,
  sendFromGuest,
  serverInfo,
  sshEventually,
  TEST_IMAGE,
} from './support.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'nubis-seam-'));
const lxd = engine();

let nubis: Nubis;
let alice: TestAccount;
let uuid = '';
let address = '';
let password = '';

async function instance() {
  return lxd.get<{
    created_at: string;
    config: Record<string, string>;
    devices: Record<string, Record<string, string>>;
  }>(`/1.0/instances/nubis-${uuid}`);
}

const usage = async () => (await serverInfo(nubis.client, alice.token, uuid)).bandwidth.usage as number;

before(async () => {
  nubis = await startNubis(dataDir);
  alice = await createAccount(nubis.client);
  const created = await nubis.client.request('POST', '/v1.3/server/create', {
    token: alice.token,
    body: { hostname: 'seam.example.com', label: 'seam', region: 101, image: TEST_IMAGE, plan: 1 },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  uuid = created.body.uuid;
  const running = await awaitPower(nubis.client, alice.token, uuid, 'running');
  address = publicAddress(running);
  password = running.info.password;
});

after(async () => {
  if (uuid) await nubis.client.request('DELETE', `/v1.3/server/remove/${uuid}`, { token: alice.token });
  await eventually('instance removed', 60, async () =>
    uuid && (await lxd.exists(`/1.0/instances/nubis-${uuid}`)) ? undefined : true,
  ).catch(() => {});
  await stopNubis(nubis);
  lxd.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test('bandwidth: a stop and start, and a restart of Nubis, lower nothing already counted', async () => {
  // 40 MiB from the guest to the host (what a server sends is metered).
  await sendFromGuest(lxd, uuid, 40);
  const counted = await eventually('the traffic counted', 30, async () => {
    const gb = await usage();
    return gb >= 0.03 ? gb : undefined;
  });

  for (const command of ['stop', 'start']) {
    const answer = await nubis.client.request('PATCH', `/v1.3/server/${command}`, {
      token: alice.token,
      body: { server_id: uuid },
    });
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    await awaitPower(nubis.client, alice.token, uuid, command === 'stop' ? 'stopped' : 'running');
  }
  const afterStopStart = await usage();
  console.log(`bandwidth: ${counted} GB before, ${afterStopStart} GB after a stop and start`);
  assert.ok(afterStopStart >= counted, `${afterStopStart} GB after a stop and start, ${counted} GB before`);

  await stopNubis(nubis);
  nubis = await startNubis(dataDir);
  const afterRestart = await usage();
  console.log(`bandwidth: ${afterRestart} GB after a restart of Nubis`);
  assert.ok(afterRestart >= afterStopStart, `${afterRestart} GB after a restart, ${afterStopStart} GB before`);

  // The meter goes on from there: the counters restarted with the machine, the month's total did not.
  await sendFromGuest(lxd, uuid, 20);
  const more = await eventually('more traffic counted', 30, async () => {
    const gb = await usage();
    return gb >= afterRestart + 0.015 ? gb : undefined;
  });
  console.log(`bandwidth: ${more} GB after 20 MB more`);
});

test('drift: a CPU limit and a NIC changed in the engine are the plan’s again after one reconciliation', async () => {
  const plan = (await instance()).config;
  assert.equal(plan['limits.cpu'], '1');
  const eth0 = (await instance()).devices.eth0!;
  await lxd.run('PATCH', `/1.0/instances/nubis-${uuid}`, {
    body: { config: { 'limits.cpu': '2' }, devices: { eth0: { ...eth0, 'limits.ingress': '1Mbit' } } },
  });
  assert.equal((await instance()).config['limits.cpu'], '2');
  const putBack = await eventually('the limits put back', 30, async () => {
    const now = await instance();
    return now.config['limits.cpu'] === '1' && now.devices.eth0?.['limits.ingress'] === undefined ? now : undefined;
  });
  assert.equal(putBack.config['limits.memory'], '1024MiB');
  const event = await eventually('the drift event', 10, async () => {
    const answer = await nubis.client.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
    return answer.body.events.find((e: JsonBody) => e.type === 'server.drift' && e.resource.uuid === uuid);
  });
  console.log(`drift event: ${JSON.stringify(event.data)}`);
  assert.ok(event.data.corrected.includes('limits.cpu 2 → 1'), JSON.stringify(event.data));
  assert.ok(
    event.data.corrected.some((d: string) => d.startsWith('NIC eth0')),
    JSON.stringify(event.data),
  );
  await sshEventually(address, { password }, 'true');
});

test('a rebuild killed halfway converges when Nubis is back, without making the disk a second time', async () => {
  const first = (await instance()).created_at;
  const rebuilt = await nubis.client.request('POST', '/v1.3/server/rebuild', {
    token: alice.token,
    body: { server_id: uuid, image_id: TEST_IMAGE },
  });
  assert.equal(rebuilt.status, 202, JSON.stringify(rebuilt.body));
  // Killed as soon as the new instance exists: the job has made the disk and not yet settled.
  const made = await eventually('the disk re-created', 120, async () => {
    const now = await instance().catch(() => undefined);
    return now && now.created_at !== first ? now.created_at : undefined;
  });
  await stopNubis(nubis, 'SIGKILL');
  nubis = await startNubis(dataDir);
  const shown = await serverInfo(nubis.client, alice.token, uuid);
  assert.equal(shown.power, 'rebuilding', 'the job was still open when its process was killed');
  const running = await awaitPower(nubis.client, alice.token, uuid, 'running', 180);
  const after = await instance();
  console.log(`rebuild: instance made at ${made}; after the restart ${after.created_at} (before the rebuild ${first})`);
  assert.equal(after.created_at, made, 'the disk was made once');
  const login = await sshEventually(address, { password: running.info.password }, 'hostname');
  assert.equal(login.stdout.trim(), 'seam.example.com');
  password = running.info.password;
});
