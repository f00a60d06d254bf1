// The prebuilt server (`npm run bundle`, scripts/bundle.ts) is the sources bundled, nothing else:
// built here into a folder of its own, it answers the scripted session byte for byte as the
// sources do, seeded alike, on the run's database. (bin/nubis.ts and @nubis/testing load it
// through src/prebuilt.ts, whose freshness check src/prebuilt.test.ts covers; its code cache,
// src/prebuilt-scripts.ts, is checked here across fresh processes.)

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { loadInstance, prebuiltEntry } from '../src/prebuilt.ts';
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
  const prebuilt = await loadInstance({}, out);
  assert.equal(prebuilt.code, 'prebuilt', 'the bundle just built matches the sources');
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

/**
 * A fresh process that loads the bundle in `out` as @nubis/testing does, with Node's compile
 * cache in `cacheDir`, starts, saves the code cache and stops; answers where its code came from.
 */
function startInChild(cacheDir: string): string {
  const child = `
import { enableCompileCache } from 'node:module';
enableCompileCache(${JSON.stringify(cacheDir)});
const { loadInstance } = await import(${JSON.stringify(`${root}/src/prebuilt.ts`)});
const { loadConfig } = await import(${JSON.stringify(`${root}/src/config.ts`)});
const loaded = await loadInstance({}, ${JSON.stringify(out)});
const running = await loaded.startInstance(loadConfig({
  NUBIS_MODE: 'emulator', PORT: '0', HOST: '127.0.0.1', DATA_DIR: ':memory:', LOG_LEVEL: 'silent',
  ADMIN_TOKEN: 'prebuilt-code-cache-token', SWEEPS: 'false',
}));
loaded.saveCodeCache();
await running.close();
process.stdout.write(loaded.code);
`;
  // The variable too: set (as npm test sets it), it enables the cache at start-up in its own folder, before the call.
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', child], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NODE_COMPILE_CACHE: cacheDir },
  });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

test("the bundle's code cache is written by a first start, read by the next, and rewritten when refused", () => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'nubis-code-cache-'));
  try {
    assert.equal(startInChild(cacheDir), 'prebuilt');
    const [version] = readdirSync(cacheDir);
    const dir = join(cacheDir, String(version), 'nubis-prebuilt');
    const entry = readdirSync(dir).find((name) => name.startsWith('instance-') && name.endsWith('.v8'));
    assert.ok(entry, `the entry's cache is written: ${readdirSync(dir).join(' ')}`);
    const file = join(dir, entry);
    // Taken: the next start leaves it as it is.
    const written = statSync(file).mtimeMs;
    assert.equal(startInChild(cacheDir), 'prebuilt');
    assert.equal(statSync(file).mtimeMs, written);
    // Damaged: V8 refuses it, the start goes on without it, and writes a new one.
    writeFileSync(file, 'not a code cache');
    assert.equal(startInChild(cacheDir), 'prebuilt');
    assert.ok(readFileSync(file).length > 1000, 'a new cache is written');
  } finally {
    rmSync(cacheDir, { recursive: true, force: true });
  }
});
