// Issue 34: the engine after a restore of an older backup of Nubis's database, on the real
// engine. Server A is in the backup and removed after it (its instance goes); server B is made
// after it. Restored: A shows lost (its machine is gone), B's instance is an orphan: reported
// (the admin list, the gauge) and still running until the operator removes it, then gone.

import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { backupDatabase } from '../../src/db/backup.ts';
import { sqliteFileOf } from '../../src/db/connect.ts';
import type { JsonBody, TestInstance } from '../support/instance.ts';
import { createAccount, type TestAccount } from '../support/accounts.ts';
import { awaitPower, engine, eventually, removeServers, serverInfo, startLxdInstance, TEST_IMAGE } from './support.ts';

const METRICS_TOKEN = 'restore-metrics-0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'nubis-restore-'));
const lxd = engine();
const made: string[] = [];
let nubis: TestInstance;
let alice: TestAccount;

const serve = () => startLxdInstance({ DATA_DIR: dataDir, DATABASE_URL: '', METRICS_TOKEN });

before(async () => {
  nubis = await serve();
  alice = await createAccount(nubis);
});

after(async () => {
  await removeServers(nubis, alice.token, made, lxd);
  // An orphan the test did not get to remove: the engine's own delete.
  for (const uuid of made) await lxd.run('DELETE', `/1.0/instances/nubis-${uuid}`).catch(() => {});
  await nubis.close();
  lxd.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function createServer(label: string): Promise<string> {
  const created = await nubis.request('POST', '/v1.3/server/create', {
    token: alice.token,
    body: { hostname: `${label}.example.com`, label, region: 101, image: TEST_IMAGE, plan: 1 },
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const uuid = created.body.uuid as string;
  made.push(uuid);
  await awaitPower(nubis, alice.token, uuid, 'running');
  return uuid;
}

const hasInstance = async (uuid: string) =>
  (await lxd.get<string[]>('/1.0/instances')).some((name) => name.endsWith(`/nubis-${uuid}`));

const orphaned = async () =>
  Number(
    /^nubis_machines_orphaned (\d+)$/m.exec(
      await (await fetch(`${nubis.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text(),
    )?.[1],
  );

test('after restoring an older database: the lost server shows lost, the orphan is kept until the operator removes it', async () => {
  const a = await createServer('restore-a');
  const backup = join(dataDir, 'backup.db');
  await backupDatabase({ databaseUrl: '', dataDir }, backup);

  const b = await createServer('restore-b');
  const removed = await nubis.request('DELETE', `/v1.3/server/remove/${a}`, { token: alice.token });
  assert.equal(removed.status, 204, JSON.stringify(removed.body));
  await eventually("A's instance removed", 60, async () => ((await hasInstance(a)) ? undefined : true));

  // The restore, as docs/operating.md says: stopped, the backup in place of the database, started.
  await nubis.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqliteFileOf(dataDir)}${suffix}`, { force: true });
  copyFileSync(backup, sqliteFileOf(dataDir));
  nubis = await serve();

  const lost = await eventually('A shown lost', 20, async () => {
    const info = await serverInfo(nubis, alice.token, a);
    const present = (info.conditions as JsonBody[] | undefined)?.find((c) => c.type === 'MachinePresent');
    return present?.status === 'false' ? present : undefined;
  });
  assert.equal(lost.reason, 'InstanceMissing');
  const gone = await nubis.request('GET', `/v1.3/server/info/${b}`, { token: alice.token });
  assert.equal(gone.status, 404, 'the restored database does not know B');

  const listed = await eventually('B reported as orphaned', 20, async () => {
    const answer = await nubis.admin('GET', '/admin/machines/orphans');
    return answer.body.orphans?.length ? answer.body.orphans : undefined;
  });
  assert.deepEqual(
    listed.map((o: JsonBody) => [o.uuid, o.instance, o.power, o.removing]),
    [[b, `nubis-${b}`, 'running', false]],
  );
  assert.equal(await orphaned(), 1);
  // Kept: reported, not removed (the engine still runs it).
  assert.ok(await hasInstance(b), "B's instance kept");

  const removal = await nubis.admin('DELETE', `/admin/machines/orphans/${b}`);
  assert.equal(removal.status, 202, JSON.stringify(removal.body));
  await eventually("B's instance removed", 60, async () => ((await hasInstance(b)) ? undefined : true));
  await eventually('the list empty', 20, async () =>
    (await nubis.admin('GET', '/admin/machines/orphans')).body.orphans.length === 0 ? true : undefined,
  );
  assert.equal(await orphaned(), 0);
});
