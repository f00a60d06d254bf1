// `npm test`: runs every test file once per database — SQLite, then PostgreSQL + Redis — and
// then the scale-out suite (several `nubis` processes on one PostgreSQL and Redis). A database
// that cannot be reached fails the run with a clear line; it is never skipped silently.
// TEST_DATABASES=sqlite narrows the run; file arguments run just those files.

import { spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';

const databases = (process.env.TEST_DATABASES ?? 'sqlite,postgres')
  .split(',')
  .map((d) => d.trim())
  .filter(Boolean);
const pgUrl = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
const redisUrl = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
const explicitFiles = process.argv.slice(2);
const files = explicitFiles.length ? explicitFiles : ['src/**/*.test.ts', 'test/**/*.test.ts'];

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

let failed = false;
for (const db of databases) {
  if (db !== 'sqlite' && db !== 'postgres') {
    console.error(`npm test: unknown database "${db}" in TEST_DATABASES (use sqlite, postgres)`);
    process.exit(2);
  }
  if (db === 'postgres') {
    const [pgUp, redisUp] = await Promise.all([
      reachable(pgUrl.hostname, Number(pgUrl.port || 5432)),
      reachable(redisUrl.hostname, Number(redisUrl.port || 6379)),
    ]);
    if (!pgUp || !redisUp) {
      console.error(
        `npm test: ${!pgUp ? `PostgreSQL at ${pgUrl.host}` : ''}${!pgUp && !redisUp ? ' and ' : ''}${!redisUp ? `Redis at ${redisUrl.host}` : ''} not reachable: start them, or run TEST_DATABASES=sqlite npm test`,
      );
      failed = true;
      continue;
    }
  }
  console.log(`\n=== test suite on ${db}${db === 'postgres' ? ' + Redis' : ''} ===`);
  const result = spawnSync(process.execPath, ['--test', '--test-concurrency=4', '--test-timeout=120000', ...files], {
    stdio: 'inherit',
    env: { ...process.env, TEST_DB: db },
  });
  if (result.status !== 0) failed = true;
}
if (databases.includes('postgres') && explicitFiles.length === 0 && !failed) {
  console.log('\n=== scale-out suite: several instances on PostgreSQL + Redis ===');
  const result = spawnSync(
    process.execPath,
    ['--test', '--test-concurrency=1', '--test-timeout=180000', 'test/scale-out/*.scale.ts'],
    { stdio: 'inherit', env: process.env },
  );
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
