// The compute seam's boundaries, enforced: transition and job action names are spelled only where
// their unions are declared (a service names a change by calling its constructor), and only the
// seam itself (src/compute/) calls a driver or queues a job. The seam owns its model: src/compute
// never imports src/servers, the LXD driver (src/compute/lxd/) is imported only inside the seam
// (everything else, the command line and the real-driver suites too, goes through
// src/compute/lxd-engine.ts), and the Engine interface has no optional member for callers to test.
// Each scanner is shown to find a planted violation first, so a pass means something.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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

// --- The seam owns its model (issue 37) ---

interface SourceFile {
  /** From the repository root. */
  path: string;
  source: string;
}

const skipped = new Set(['node_modules', 'dist', 'generated', '.bench', 'data']);

/** Every TypeScript file under `dir` (tests included: a test of the seam may not reach around it either). */
function everySource(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    if (skipped.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return everySource(path);
    return /\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module a source imports or re-exports, static, type-only or dynamic. */
export function importedModules(source: string): string[] {
  const pattern = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  return [...source.matchAll(pattern)].map((match) => (match[1] ?? match[2])!);
}

/** A relative import as a path from the repository root; a package name as it is. */
function target(file: string, specifier: string): string {
  return specifier.startsWith('.') ? relative(root, resolve(root, dirname(file), specifier)) : specifier;
}

/** The seam's import rules broken by `files`, one line each. */
export function seamImportViolations(files: readonly SourceFile[]): string[] {
  return files.flatMap(({ path, source }) =>
    importedModules(source).flatMap((specifier) => {
      const to = target(path, specifier);
      if (path.startsWith('src/compute/') && to.startsWith('src/servers/'))
        return [`${path} imports ${specifier}: servers use compute, never the reverse`];
      if (to.startsWith('src/compute/lxd/') && !path.startsWith('src/compute/'))
        return [
          `${path} imports ${specifier}: the LXD driver is reached through the seam (src/compute/lxd-engine.ts outside it)`,
        ];
      return [];
    }),
  );
}

/** The members of `interface <name>` in `source` declared optional (`x?(…)` or `x?:`). */
export function optionalMembers(source: string, name: string): string[] {
  const start = source.search(new RegExp(`^export interface ${name}\\b[^{]*\\{`, 'm'));
  if (start < 0) throw new Error(`interface ${name} not found`);
  const end = source.indexOf('\n}', start);
  return source
    .slice(start, end)
    .split('\n')
    .map((line) => /^ {2}(?:readonly )?(\w+)\?\s*[(:<]/.exec(line)?.[1])
    .filter((member): member is string => member !== undefined);
}

/** Every source file of the repository but this one, whose planted imports are text in strings. */
const tree: SourceFile[] = ['src', 'bin', 'cli', 'test', 'testing', 'scripts', 'bench']
  .flatMap((top) => everySource(join(root, top)))
  .map((file) => ({ path: relative(root, file), source: readFileSync(file, 'utf8') }))
  .filter(({ path }) => path !== 'test/compute-seam.test.ts');

test('the import reader sees static, type-only, re-exported and dynamic imports', () => {
  const source = [
    "import { a } from '../servers/a.ts';",
    "import type { B } from '../servers/b.ts';",
    "export { c } from './c.ts';",
    "const { d } = await import('../compute/lxd/d.ts');",
  ].join('\n');
  assert.deepEqual(importedModules(source), ['../servers/a.ts', '../servers/b.ts', './c.ts', '../compute/lxd/d.ts']);
});

test('a planted import of servers from compute, and of the LXD driver from elsewhere, are reported', () => {
  const planted: SourceFile[] = [
    { path: 'src/compute/job-runner.ts', source: "import type { Transition } from '../servers/power-state.ts';" },
    {
      path: 'src/compute/lxd/lxd-driver.ts',
      source: "import { parseScriptStatus } from '../../servers/script-outcome.ts';",
    },
    { path: 'src/network/ip-pool.test.ts', source: "import { regionBridges } from '../compute/lxd/lxd-networks.ts';" },
    {
      path: 'src/server-console/console.service.ts',
      source: "const { openLxdConsole } = await import('../compute/lxd/console.ts');",
    },
    // The command line, the real-driver suites, their scripts and benches: through the public face only.
    // Spelled as a static import: a dynamic one in this file's text would be read as this file's own import.
    { path: 'bin/nubis.ts', source: "import { runImagesBuild } from '../src/compute/lxd/commands.ts';" },
    { path: 'test/lxd/support.ts', source: "import { LxdClient } from '../../src/compute/lxd/lxd-client.ts';" },
    { path: 'test/cluster/support.ts', source: "import { LxdClient } from '../../src/compute/lxd/lxd-client.ts';" },
    { path: 'scripts/test-lxd.ts', source: "import { tinyImageRevision } from '../src/compute/lxd/images.ts';" },
    { path: 'bench/lxd.ts', source: "import { instanceName } from '../src/compute/lxd/lxd-names.ts';" },
  ];
  assert.equal(seamImportViolations(planted).length, 9);
  // What the rules allow: servers using compute, the seam using the driver, anything else its public face.
  const allowed: SourceFile[] = [
    { path: 'src/servers/server.service.ts', source: "import { shownPower } from '../compute/power-state.ts';" },
    { path: 'src/compute/registry.ts', source: "import { LxdDriver } from './lxd/lxd-driver.ts';" },
    { path: 'src/compute/lxd-engine.ts', source: "export { LxdClient } from './lxd/lxd-client.ts';" },
    { path: 'bin/nubis.ts', source: "import { runImagesBuild } from '../src/compute/lxd-engine.ts';" },
    { path: 'test/lxd/support.ts', source: "import { LxdClient } from '../../src/compute/lxd-engine.ts';" },
  ];
  assert.deepEqual(seamImportViolations(allowed), []);
});

test('src/compute imports no servers module, and only the seam imports the LXD driver', () => {
  assert.ok(tree.filter(({ path }) => path.startsWith('src/compute/')).length > 30, 'the seam is read');
  assert.deepEqual(seamImportViolations(tree), []);
});

test('a planted optional member of an interface is found, a required one and an optional parameter are not', () => {
  const planted = [
    'export interface Engine {',
    '  converge(uuid: string, spec?: MachineSpec): Promise<void>;',
    '  enforceBlockedPorts?(regions: Region[]): Promise<void>;',
    '  changes?: () => ReadonlySet<string> | null;',
    '  readonly name?: string;',
    '  /** scriptReport?(uuid) was optional once. */',
    '}',
    'export interface Other {',
    '  later?(): void;',
    '}',
  ].join('\n');
  assert.deepEqual(optionalMembers(planted, 'Engine'), ['enforceBlockedPorts', 'changes', 'name']);
});

test('the Engine interface has no optional member: a caller never tests whether the engine has one', () => {
  const seam = readFileSync(join(root, 'src/compute/compute-driver.ts'), 'utf8');
  assert.deepEqual(optionalMembers(seam, 'Engine'), []);
});
