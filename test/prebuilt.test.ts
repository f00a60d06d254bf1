// The prebuilt server (`npm run bundle`, scripts/bundle.ts) is the sources bundled, nothing else:
// built here into a folder of its own, it answers the scripted session byte for byte as the
// sources do, seeded alike, on the run's database. (bin/nubis.ts and @nubis/testing load it
// through src/prebuilt.ts, whose freshness check src/prebuilt.test.ts covers.)

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { prebuiltEntry } from '../src/prebuilt.ts';
import { startedTogether, startTestInstance, type TestInstance } from './support/instance.ts';
import { type Answer, assertSameAnswers, scriptedSession } from './support/scripted-session.ts';

const root = resolve(import.meta.dirname, '..');
// Under the project, so that the packages left outside the bundle resolve from node_modules.
const out = resolve(root, `dist/test-${process.pid}`);
const seeded = { NUBIS_MODE: 'emulator', NUBIS_SEED: 'prebuilt-and-sources' };
let instances: TestInstance[] = [];
let fromSources: Answer[];
let fromPrebuilt: Answer[];

before(async () => {
  const build = spawnSync(process.execPath, ['scripts/bundle.ts', '--out', out], { cwd: root, encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
  const entry = prebuiltEntry({}, out);
  assert.ok(entry, 'the bundle just built matches the sources');
  const prebuilt = (await import(entry)) as typeof import('../src/instance.ts');
  instances = await startedTogether([
    startTestInstance(seeded),
    startTestInstance(seeded, { startInstance: prebuilt.startInstance }),
  ]);
  [fromSources, fromPrebuilt] = (await Promise.all(instances.map(scriptedSession))) as [Answer[], Answer[]];
});

after(async () => {
  await Promise.all(instances.map((nubis) => nubis.close()));
  rmSync(out, { recursive: true, force: true });
});

test('the prebuilt server answers the scripted session byte for byte as the sources do', () => {
  assert.ok(fromSources.length >= 50, `${fromSources.length} calls`);
  assertSameAnswers(fromSources, fromPrebuilt);
});

test('NUBIS_PREBUILT=off loads the sources even when the bundle is fresh', () => {
  assert.ok(prebuiltEntry({}, out));
  assert.equal(prebuiltEntry({ NUBIS_PREBUILT: 'off' }, out), null);
});
