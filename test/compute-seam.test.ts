// The compute seam's boundaries, enforced: transition and job action names are spelled only where
// their unions are declared (a service names a change by calling its constructor), and only the
// seam itself (src/compute/) calls a driver or queues a job. The scanner is shown to find a
// planted literal first, so a pass means something.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { artifactKinds, convergeJob } from '../src/compute/compute-driver.ts';
import { POWER_STATES, unknownPower } from '../src/compute/power-state.ts';

const root = resolve(import.meta.dirname, '..');

/** Where the names are declared: the power states, the seam's model, the changes and what each shows. */
const declarations = new Set([
  'src/compute/power-state.ts',
  'src/compute/compute-driver.ts',
  'src/compute/machine-intents.ts',
]);

function sources(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sources(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

/** Every source file of the server but the declarations and the migrations (history keeps old names). */
const checked = sources(join(root, 'src'))
  .map((path) => relative(root, path))
  .filter((path) => !declarations.has(path) && !path.startsWith('src/db/migrations/'));

// The settled states and the one shown while the engine cannot be reached are no transitions.
const transitions = POWER_STATES.filter(
  (state) => state !== 'running' && state !== 'stopped' && state !== unknownPower,
);
const names: readonly string[] = [...transitions, convergeJob, ...artifactKinds];

/** Lines of `source` (not comments) holding one of the names as a whole string literal. */
function literalsIn(source: string): string[] {
  const literal = new RegExp(`(['"])(${names.join('|')})\\1`);
  return source
    .split('\n')
    .map((line, index) => ({ line: line.trim(), number: index + 1 }))
    .filter(({ line }) => !line.startsWith('//') && !line.startsWith('*') && !line.startsWith('/*'))
    .filter(({ line }) => literal.test(line))
    .map(({ line, number }) => `${number}: ${line}`);
}

test('the scanner finds a planted transition or action literal, and not a name inside prose', () => {
  assert.equal(literalsIn("await enqueue(ctx, trx, server.uuid, 'booting');").length, 1);
  assert.equal(literalsIn('if (job.action === "forgetImage") return;').length, 1);
  assert.equal(literalsIn(`const kind = '${convergeJob}';`).length, 1);
  assert.equal(literalsIn("description: 'it shows `booting`, then `running`',").length, 0);
  assert.equal(literalsIn("// a 'booting' server").length, 0);
});

test('no transition or job action is spelled outside the declarations of its union', () => {
  assert.ok(checked.length > 50, `the source files are found (${checked.length})`);
  const found = checked.flatMap((path) =>
    literalsIn(readFileSync(join(root, path), 'utf8')).map((line) => `${path}:${line}`),
  );
  assert.deepEqual(found, []);
});

test('only the seam calls a compute driver or queues a job', () => {
  const outside = checked.filter((path) => !path.startsWith('src/compute/'));
  const found = outside.flatMap((path) => {
    const source = readFileSync(join(root, path), 'utf8');
    return [
      // Whether there is an engine at all may be read; the driver's work goes through the seam.
      ...(/\bctx\.compute\.(?!engine\b)/.test(source) ? [`${path}: calls ctx.compute`] : []),
      ...(/from '[./]*compute\/job-queue\.ts'/.test(source) ? [`${path}: imports the job queue`] : []),
    ];
  });
  assert.deepEqual(found, []);
});
