// Start-up with Redis: it connects while storage opens and the routes are built, and is waited
// for only before listening. With Redis away the instance still starts and says so; a start-up
// that fails on its database does not leave the Redis connection keeping the process alive.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, deployment, fundedAccount, redisUrl, type Deployment } from './instances.ts';

const root = new URL('../../', import.meta.url).pathname;
let deploy: Deployment;

before(async () => {
  deploy = await deployment();
});
after(async () => {
  await deploy.close();
});

test('with Redis away, an instance starts, says that budgets count in memory, and serves', async () => {
  // Port 9 (discard) on this host: nothing listens, the connection is refused at once.
  const instance = await deploy.start({ REDIS_URL: 'redis://127.0.0.1:9' });
  assert.match(instance.output(), /redis not ready after 5 s; rate limits count in memory/);
  const account = await fundedAccount(instance.url, 0);
  const answer = await call(instance.url, 'GET', '/v1.3/account/info', { token: account.token });
  assert.equal(answer.status, 200);
});

test('a start-up that fails on its database ends, its Redis connection closed', async () => {
  const script = `
    const { startInstance } = await import(${JSON.stringify(join(root, 'src/instance.ts'))});
    const { loadConfig } = await import(${JSON.stringify(join(root, 'src/config.ts'))});
    await startInstance(loadConfig(process.env)).then(
      () => console.log('started'),
      (error) => console.log('refused:', error.message),
    );`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: root,
    env: {
      ...process.env,
      ...deploy.env,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'nubis-start-')),
      // A database that does not exist: opening storage fails after Redis was asked for.
      DATABASE_URL: `postgres://postgres@127.0.0.1:5432/nubis_missing_${randomBytes(3).toString('hex')}`,
      REDIS_URL: redisUrl,
      // No waiting for a database that will not appear: ten one-second retries plus a start from
      // sources under load took the 20 s this test gives the process to end by itself.
      DB_CONNECT_RETRIES: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  // Nothing left open: the process ends by itself (a live Redis client would keep it running).
  const ended = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(null);
    }, 20_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
  assert.match(output, /refused: DATABASE_URL .*storage cannot be opened/);
  assert.equal(ended, 0, `the process did not end by itself:\n${output}`);
});
