// Nubis killed mid-job (SIGKILL of its process while a create's converge is under way): a new
// Nubis on the same database takes the job up once its lease runs out and finishes it, on the disk
// the dead one had the engine make (made once, never twice), and the owner sees the truth meanwhile.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createAccount, type TestAccount } from '../support/accounts.ts';
import type { JsonBody } from '../support/instance.ts';
import { type Nubis, startNubis, stopNubis } from './nubis-process.ts';
import { awaitPower, engine, eventually, serverInfo, TEST_IMAGE } from './support.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'nubis-crash-'));
const lxd = engine();
let nubis: Nubis;
let alice: TestAccount;
let uuid = '';

before(async () => {
  nubis = await startNubis(dataDir);
  alice = await createAccount(nubis.client);
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

const condition = (info: JsonBody, type: string) =>
  (info.conditions as JsonBody[] | undefined)?.find((c) => c.type === type);

test('Nubis killed during a create: a new Nubis finishes it on the disk made once', async () => {
  const created = await nubis.client.request('POST', '/v1.3/server/create', {
    token: alice.token,
    body: { hostname: 'killed.example.com', label: 'killed', region: 101, image: TEST_IMAGE, plan: 1 },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  uuid = created.body.uuid;
  // Killed as soon as the engine has the instance: the job made the disk and has not settled.
  const made = await eventually('the disk made', 120, async () => {
    const instance = await lxd.get<{ created_at: string }>(`/1.0/instances/nubis-${uuid}`).catch(() => undefined);
    return instance?.created_at;
  });
  await stopNubis(nubis, 'SIGKILL');
  nubis = await startNubis(dataDir);

  const shown = await serverInfo(nubis.client, alice.token, uuid);
  assert.equal(shown.power, 'provisioning', 'the job is still open');
  const running = await awaitPower(nubis.client, alice.token, uuid, 'running', 180);
  assert.equal(condition(running, 'MachinePresent')?.status, 'true');
  assert.equal(condition(running, 'Degraded')?.status, 'false', JSON.stringify(running.conditions));
  const instance = await lxd.get<{ created_at: string; status: string; config: Record<string, string> }>(
    `/1.0/instances/nubis-${uuid}`,
  );
  assert.equal(instance.created_at, made, 'the disk was made once');
  assert.equal(instance.status, 'Running');
  assert.equal(instance.config['user.nubis.first-boot'], instance.config['user.nubis.disk'], 'its first boot written');
  const names = (await lxd.get<string[]>('/1.0/instances')).filter((n) => n.includes(uuid));
  assert.equal(names.length, 1, 'one machine');
});
