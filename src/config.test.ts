// The configuration's registry: every area's `*.config.ts` is listed in src/config.ts, and no
// variable (by its key or its environment name) is declared by two areas.

import assert from 'node:assert/strict';
import { globSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { areas, assemble, configTable, variables } from './config.ts';
import { area, type Area, type Variables, variable } from './platform/config-area.ts';
import { text } from './platform/config-parsers.ts';

const root = resolve(import.meta.dirname, '..');

const isArea = (value: unknown): value is Area<Variables> =>
  typeof value === 'object' && value !== null && 'title' in value && 'variables' in value;

/** The areas a set of modules export that the registry does not list: `file: title`. */
export function unregisteredAreas(
  modules: Record<string, Record<string, unknown>>,
  registry: readonly Area<Variables>[],
): string[] {
  return Object.entries(modules).flatMap(([file, exports]) =>
    Object.values(exports)
      .filter(isArea)
      .filter((declared) => !registry.includes(declared))
      .map((declared) => `${file}: ${declared.title}`),
  );
}

async function areaModules(): Promise<Record<string, Record<string, unknown>>> {
  const files = globSync('src/**/*.config.ts', { cwd: root });
  assert.ok(files.length >= 10, `found ${files.length} area files`);
  const modules: Record<string, Record<string, unknown>> = {};
  for (const file of files) modules[file] = (await import(resolve(root, file))) as Record<string, unknown>;
  return modules;
}

test('every area a `*.config.ts` declares is in the registry, and the registry holds nothing else', async () => {
  const modules = await areaModules();
  assert.deepEqual(unregisteredAreas(modules, areas), []);
  const declared = Object.values(modules).flatMap((exports) => Object.values(exports).filter(isArea));
  assert.deepEqual(
    areas.filter((listed) => !declared.includes(listed)).map((listed) => listed.title),
    [],
    'listed in src/config.ts but declared in no src/**/*.config.ts',
  );
});

test('every variable of every area is in the assembled table and the reference, once', () => {
  const declared = areas.flatMap((listed) => Object.values(listed.variables as Variables).map((one) => one.env));
  const assembled = Object.values(variables as Variables).map((one) => one.env);
  assert.deepEqual([...assembled].sort(), [...declared].sort());
  assert.equal(new Set(declared).size, declared.length);
  const table = configTable();
  for (const env of declared)
    assert.equal(table.split(`| \`${env}\` |`).length - 1, 1, `${env} in the configuration reference`);
});

test('the check itself: a variable declared by two areas, and an area left out of the registry, are caught', () => {
  const first = area({ title: 'First', variables: { colour: variable('COLOUR', 'red', text, 'a colour') } });
  const sameKey = area({ title: 'Second', variables: { colour: variable('HUE', 'red', text, 'a hue') } });
  const sameName = area({ title: 'Third', variables: { hue: variable('COLOUR', 'red', text, 'a colour again') } });
  assert.throws(
    () => assemble([first, sameKey]),
    /colour is declared by two areas of the configuration: First and Second/,
  );
  assert.throws(
    () => assemble([first, sameName]),
    /COLOUR is declared by two areas of the configuration: First and Third/,
  );
  assert.deepEqual(Object.keys(assemble([first])), ['colour']);
  assert.deepEqual(unregisteredAreas({ 'src/paint/paint.config.ts': { first, sameKey } }, [first]), [
    'src/paint/paint.config.ts: Second',
  ]);
});
