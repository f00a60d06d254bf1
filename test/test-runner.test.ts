// `npm test` on a machine without PostgreSQL and Redis: the SQLite stage runs, the run names the
// stages it did not run and why and passes; under CI=true the same run fails. The runner is
// pointed at closed ports and given one tiny test file, so the test takes a second or two.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/ports.ts';

const root = new URL('..', import.meta.url).pathname;

let folder: string;
let file: string;
before(() => {
  folder = mkdtempSync(join(tmpdir(), 'nubis-runner-'));
  file = join(folder, 'tiny.test.ts');
  writeFileSync(file, "import { test } from 'node:test';\ntest('runs', () => {});\n");
});
after(() => rmSync(folder, { recursive: true, force: true }));

async function runTests(env: Record<string, string>) {
  const [pgPort, redisPort] = await Promise.all([freePort(), freePort()]);
  const inherited = { ...process.env };
  // The runner inside a test must report as a top-level run, not to this one.
  delete inherited.NODE_TEST_CONTEXT;
  delete inherited.CI;
  delete inherited.TEST_DATABASES;
  const run = spawnSync(process.execPath, ['scripts/test.ts', file], {
    cwd: root,
    encoding: 'utf8',
    env: {
      ...inherited,
      TEST_DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/test`,
      TEST_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      ...env,
    },
  });
  return { code: run.status, output: `${run.stdout}${run.stderr}`, pgPort, redisPort };
}

describe('npm test without PostgreSQL and Redis', () => {
  test('runs the SQLite stage, names the stage it did not run and why, and passes', async () => {
    const run = await runTests({});
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /=== test suite on sqlite ===/);
    assert.match(run.output, /\bpass 1\b/);
    assert.doesNotMatch(run.output, /=== test suite on postgres/);
    const summary = run.output.slice(run.output.lastIndexOf('not run:'));
    assert.match(
      run.output,
      new RegExp(
        `not run:\\n {2}- the suite on PostgreSQL \\+ Redis: PostgreSQL at 127\\.0\\.0\\.1:${run.pgPort} and Redis at 127\\.0\\.0\\.1:${run.redisPort} not reachable`,
      ),
      summary,
    );
  });

  test('fails under CI=true, where every stage is required', async () => {
    const run = await runTests({ CI: 'true' });
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /\bpass 1\b/, 'the SQLite stage still ran');
    assert.match(run.output, /not reachable \(CI=true: every stage is required\)/);
  });
});

// The stages run side by side (issue 38): with a database stage and the reverse DNS stage under way
// at once, each report is printed whole under its own header, never interleaved with the other's.
const dnsTools = ['/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql', '/usr/bin/dig'];
describe('npm test with stages side by side', () => {
  test("prints each stage's report whole under its header", {
    skip: dnsTools.every((path) => existsSync(path)) ? false : 'PowerDNS tools not installed',
  }, async () => {
    const dnsFile = join(folder, 'tiny.pdns.ts');
    writeFileSync(
      dnsFile,
      "import { test } from 'node:test';\nfor (let i = 0; i < 20; i++) test('dns ' + i, () => new Promise((r) => setTimeout(r, 10)));\n",
    );
    const inherited = { ...process.env };
    delete inherited.NODE_TEST_CONTEXT;
    delete inherited.CI;
    const run = spawnSync(process.execPath, ['scripts/test.ts', file, dnsFile], {
      cwd: root,
      encoding: 'utf8',
      // Any file stands for pdns_server: the runner only checks that it is there.
      env: { ...inherited, TEST_DATABASES: 'sqlite', PDNS_SERVER_PATH: process.execPath },
    });
    const output = `${run.stdout}${run.stderr}`;
    assert.equal(run.status, 0, output);
    assert.match(output, /=== 2 lines of stages side by side/);
    const reports = output.split(/\n=== /).slice(1);
    const sqlite = reports.find((report) => report.startsWith('test suite on sqlite ==='));
    const dns = reports.find((report) => report.startsWith('reverse DNS suite: PowerDNS Authoritative on sqlite ==='));
    assert.ok(sqlite && dns, output);
    assert.match(sqlite, /✔ runs/);
    assert.match(sqlite, /\bpass 1\b/);
    assert.doesNotMatch(sqlite, /dns \d/, 'no line of the other stage inside this report');
    assert.match(dns, /\bpass 20\b/);
    assert.doesNotMatch(dns, /✔ runs/, 'no line of the other stage inside this report');
  });
});
