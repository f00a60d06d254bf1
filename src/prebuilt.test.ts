// The prebuilt server is used only while it matches its sources: a changed, deleted or moved
// source, or none recorded, makes it stale (src/prebuilt.ts).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { type Manifest, loadInstance, manifestName, matchesSources, prebuiltEntry } from './prebuilt.ts';

function project(): { dir: string; manifest: Manifest } {
  const dir = mkdtempSync(join(tmpdir(), 'nubis-prebuilt-'));
  for (const [name, text] of [
    ['a.ts', 'export const a = 1;\n'],
    ['b.ts', 'export const b = 2;\n'],
  ] as const)
    writeFileSync(join(dir, name), text);
  const files = ['a.ts', 'b.ts'].map((name): Manifest['files'][number] => {
    const stat = statSync(join(dir, name));
    return [name, stat.mtimeMs, stat.size];
  });
  return { dir, manifest: { entry: 'instance-x.js', build: ['instance-x.js'], files } };
}

test('a bundle matches while its sources are as they were', () => {
  const { dir, manifest } = project();
  assert.equal(matchesSources(manifest, dir), true);
  rmSync(dir, { recursive: true });
});

test('an edited, touched or deleted source makes it stale', () => {
  const cases: [string, (dir: string) => void][] = [
    ['edited', (dir) => writeFileSync(join(dir, 'a.ts'), 'export const a = 10;\n')],
    ['touched', (dir) => utimesSync(join(dir, 'b.ts'), new Date(), new Date(Date.now() + 5_000))],
    ['deleted', (dir) => rmSync(join(dir, 'b.ts'))],
  ];
  for (const [what, change] of cases) {
    const { dir, manifest } = project();
    change(dir);
    assert.equal(matchesSources(manifest, dir), false, what);
    rmSync(dir, { recursive: true });
  }
});

test('a manifest naming no source is never fresh', () => {
  assert.equal(matchesSources({ entry: 'instance-x.js', build: ['instance-x.js'], files: [] }), false);
});

test('no manifest, or NUBIS_PREBUILT=off, loads the sources', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nubis-prebuilt-'));
  assert.equal(prebuiltEntry({}, dir), null);
  writeFileSync(
    join(dir, manifestName),
    JSON.stringify({ entry: 'instance-x.js', build: ['instance-x.js'], files: [] }),
  );
  assert.equal(prebuiltEntry({}, dir), null);
  rmSync(dir, { recursive: true });
});

test('a fresh manifest whose bundle is gone (a build replaced it meanwhile) loads the sources', async () => {
  // The manifest names one real source as it is now, so it is fresh; its entry file does not exist.
  const dir = mkdtempSync(join(tmpdir(), 'nubis-prebuilt-'));
  const source = resolve(import.meta.dirname, 'config.ts');
  const stat = statSync(source);
  const manifest: Manifest = {
    entry: 'instance-gone.js',
    build: ['instance-gone.js'],
    files: [['src/config.ts', stat.mtimeMs, stat.size]],
  };
  writeFileSync(join(dir, manifestName), JSON.stringify(manifest));
  assert.ok(prebuiltEntry({}, dir), 'the manifest is fresh');
  const loaded = await loadInstance({}, dir);
  assert.equal(loaded.code, 'sources');
  assert.equal(typeof loaded.startInstance, 'function');
  rmSync(dir, { recursive: true });
});
