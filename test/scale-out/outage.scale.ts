// Losing the database mid-load: the instance answers 503 in the spec's shape and /readyz
// fails; when the database returns it recovers by itself; no acknowledged write is lost.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { adminQuery, call, deployment, fundedAccount, type Deployment, type Instance } from './instances.ts';

const database = `nubis_outage_${randomBytes(3).toString('hex')}`;
let deploy: Deployment;
let instance: Instance;

before(async () => {
  deploy = await deployment({ database, env: { DB_POOL_SIZE: '4', RATE_TOKEN_PER_SECOND: '100000' } });
  instance = await deploy.start();
});
after(async () => {
  if (instance.child.exitCode !== null) console.error(instance.output().slice(-3000));
  await deploy.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds; the bound (60 s) only keeps a broken build from hanging the suite. */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  for (const end = Date.now() + 60_000; !(await check()); await sleep(10))
    assert.ok(Date.now() < end, `never happened: ${what}`);
}

async function cutDatabase(): Promise<void> {
  await adminQuery(`alter database ${database} allow_connections false`);
  await adminQuery(
    `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${database}' and pid <> pg_backend_pid()`,
  );
}

test('the instance answers 503 while the database is gone and recovers when it returns, losing no acknowledged write', async () => {
  const account = await fundedAccount(instance.url, 0);
  const acknowledged: string[] = [];
  const statuses = new Map<number, number>();
  let running = true;
  const workers = Array.from({ length: 6 }, async (_, worker) => {
    for (let i = 0; running; i++) {
      const answer = await call(instance.url, 'POST', '/v1.3/account/token_create', {
        token: account.token,
        body: { name: `w${worker}-${i}` },
      }).catch(() => null);
      if (!answer) {
        statuses.set(0, (statuses.get(0) ?? 0) + 1);
        await sleep(20);
        continue;
      }
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 201) acknowledged.push(answer.body.uuid);
      if (answer.status === 503) {
        assert.deepEqual(Object.keys(answer.body.errors).sort(), ['reason', 'response']);
        assert.equal(answer.body.errors.response, '503 Service Unavailable');
      }
      await sleep(5);
    }
  });

  // Counts of answers, not times a loaded machine may overrun: writes before the cut, refusals
  // during it, writes again after it.
  const count = (status: number) => statuses.get(status) ?? 0;
  try {
    await until('writes before the cut', () => count(201) >= 20);
    await cutDatabase();
    await until('/readyz failing', async () => (await call(instance.url, 'GET', '/readyz')).status === 503);
    const duringRead = await call(instance.url, 'GET', '/v1.3/account/token_list', { token: account.token });
    assert.equal(duringRead.status, 503);
    const refusedBefore = count(503);
    await until('the workers meeting the outage', () => count(503) >= refusedBefore + 20);

    await adminQuery(`alter database ${database} allow_connections true`);
    await until('/readyz recovering without a restart', async () => {
      return (await call(instance.url, 'GET', '/readyz')).status === 200;
    });
    const writtenBefore = count(201);
    await until('writes after the return', () => count(201) >= writtenBefore + 20);
  } finally {
    running = false;
    await Promise.all(workers);
    await adminQuery(`alter database ${database} allow_connections true`);
  }

  assert.ok((statuses.get(503) ?? 0) > 0, `some requests met the outage: ${JSON.stringify([...statuses])}`);
  assert.ok((statuses.get(201) ?? 0) > 0, 'writes succeeded before and after');
  assert.deepEqual(
    [...statuses.keys()].filter((s) => s !== 201 && s !== 503),
    [],
    `only 201 and 503: ${JSON.stringify([...statuses])}`,
  );

  const listed = await call(instance.url, 'GET', '/v1.3/account/token_list', { token: account.token });
  assert.equal(listed.status, 200);
  const stored = new Set(listed.body.tokens.map((t: { uuid: string }) => t.uuid));
  const lost = acknowledged.filter((uuid) => !stored.has(uuid));
  assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.length} acknowledged token creates are missing`);
  assert.equal(instance.child.exitCode, null, 'the process stayed up');
});
