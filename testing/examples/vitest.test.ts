// Runs the package's Vitest example (examples/servers.vitest.ts) with Vitest itself, so the
// README's Vitest snippet is proved by `npm test` like the node:test one.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { test } from 'node:test';

const packageRoot = new URL('..', import.meta.url).pathname;

test('the Vitest example passes under Vitest', () => {
  // The package's command (its `bin`), beside its entry point at the package's root.
  const entry = createRequire(import.meta.url).resolve('vitest');
  const vitest = join(dirname(entry), 'vitest.mjs');
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  // Vitest under node:test must report as itself, not to this run.
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync(process.execPath, [vitest, 'run'], { cwd: packageRoot, encoding: 'utf8', env });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  assert.match(run.stdout, /Tests\s+1 passed/);
});
