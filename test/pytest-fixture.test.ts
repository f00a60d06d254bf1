// docs/testing.md's pytest fixture, run as written with Debian's python3-pytest: it starts
// `npx nubis dev --port 0 --ready-json`, reads the ready line and passes its two tests against
// the emulator; the Nubis it started is gone afterwards (Linux: found through /proc).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const root = new URL('..', import.meta.url).pathname;

function fixtureBlock(): string {
  const readme = readFileSync(new URL('../docs/testing.md', import.meta.url), 'utf8');
  const match = /<!-- pytest[^>]*-->\n```python\n([\s\S]*?)```/.exec(readme);
  assert.ok(match, 'docs/testing.md has a pytest block');
  return match[1]!;
}

let folder: string;
before(() => {
  folder = mkdtempSync(join(tmpdir(), 'nubis-pytest-'));
  writeFileSync(join(folder, 'test_nubis.py'), fixtureBlock());
});
after(() => rmSync(folder, { recursive: true, force: true }));

const mark = `NUBIS_PYTEST_MARK=${process.pid}-${Date.now()}`;

/** Live processes (not zombies) whose environment carries this run's mark. */
function marked(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(mark)) continue;
      if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${entry}/stat`, 'latin1'))) continue;
      found.push(Number(entry));
    } catch {}
  }
  return found;
}

test("docs/testing.md's pytest fixture starts Nubis, and its tests pass", async () => {
  const [markName, markValue] = mark.split('=') as [string, string];
  const env: NodeJS.ProcessEnv = { ...process.env, NUBIS_DIR: root, [markName]: markValue };
  for (const key of Object.keys(env)) if (key.startsWith('TEST_') || key === 'NODE_TEST_CONTEXT') delete env[key];
  // Its own process group, so nothing it started outlives the test.
  const pytest = spawn('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'test_nubis.py'], {
    cwd: folder,
    env,
    detached: true,
  });
  let output = '';
  pytest.stdout.on('data', (chunk) => {
    output += chunk;
  });
  pytest.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const timer = setTimeout(() => process.kill(-pytest.pid!, 'SIGKILL'), 90_000);
  const [code] = await once(pytest, 'exit');
  clearTimeout(timer);
  try {
    process.kill(-pytest.pid!, 'SIGKILL');
  } catch {}
  // The fixture runs Nubis in a session of its own: find what it left by the mark in its environment.
  let leftOver = marked();
  for (let waited = 0; leftOver.length && waited < 10_000; waited += 100) {
    await sleep(100);
    leftOver = marked();
  }
  for (const pid of leftOver) process.kill(pid, 'SIGKILL');
  assert.equal(code, 0, output);
  assert.match(output, /2 passed/);
  assert.deepEqual(leftOver, [], 'the fixture stopped the Nubis it started');
});
