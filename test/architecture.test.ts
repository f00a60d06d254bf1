// The package and layer boundaries of docs/architecture.md, enforced: every relative or
// package import of every source file is read and checked against the rules below.
// (Import cycles are the linter's: Biome's noImportCycles.)

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const root = resolve(import.meta.dirname, '..');
const skipped = new Set(['node_modules', 'dist', 'generated', '.bench', 'data']);

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return found;
  }
  for (const name of entries) {
    if (skipped.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (/\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

/** Every module specifier a file imports or re-exports (static and dynamic). */
export function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  const pattern = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of source.matchAll(pattern)) specifiers.push(match[1] ?? match[2]);
  return specifiers;
}

interface Rule {
  /** Files the rule applies to, as paths from the repository root. */
  files: (path: string) => boolean;
  /** True when the import (a bare specifier, or a resolved path from the root) is forbidden. */
  forbids: (target: string) => boolean;
  why: string;
}

const isHttpLayer = (path: string) => /^src\/(http|api)\//.test(path);

/** An area's configuration (`src/<area>/*.config.ts`): declarations of variables, whatever its folder. */
const isConfigArea = (path: string) => /^src\/.+\.config\.ts$/.test(path);

/** Files of src/compute that import src/servers, and why: none since the seam's model moved into compute (issue 37). */
export const computeOnServersNotYetMoved: Record<string, string> = {};
const rules: Rule[] = [
  {
    files: (path) =>
      path.startsWith('src/') && !isHttpLayer(path) && path !== 'src/instance.ts' && !path.endsWith('.test.ts'),
    forbids: (target) => /^(fastify|@fastify\/)/.test(target) || (isHttpLayer(target) && !isConfigArea(target)),
    why: 'services and the domain never see HTTP (src/http, src/api, Fastify)',
  },
  {
    files: (path) => isConfigArea(path) && !path.endsWith('.test.ts'),
    forbids: (target) => !/^node:/.test(target) && !/^src\/platform\/config-[^/]+\.ts$/.test(target),
    why: "an area's configuration declares variables only: it imports the configuration's pieces (src/platform/config-*.ts) and Node's built-ins, so src/config.ts reaching it reaches nothing else",
  },
  {
    files: (path) => path.startsWith('sdk/'),
    forbids: (target) => /^(src|bin|console|test)\//.test(target) || /^(fastify|kysely|pg)$/.test(target),
    why: 'the SDK never imports the server: it speaks HTTP only',
  },
  {
    files: (path) => path.startsWith('cli/'),
    forbids: (target) => /^(src|bin|console|test)\//.test(target) || /^sdk\/src\//.test(target),
    why: 'the CLI only talks to the API, through the SDK package',
  },
  {
    files: (path) => path.startsWith('testing/'),
    forbids: (target) =>
      (/^src\//.test(target) && !/^src\/(config|instance|prebuilt)\.ts$/.test(target)) ||
      /^(bin|console|test|cli)\//.test(target) ||
      /^sdk\/src\//.test(target),
    why: '@nubis/testing starts Nubis from its configuration and assembly only (prebuilt or not), and talks to it through the SDK',
  },
  {
    files: (path) => !path.startsWith('src/compute/'),
    forbids: (target) => /^src\/compute\/lxd\//.test(target),
    why: 'the LXD driver is reached through the compute seam (src/compute): from outside it, the command line, the real-driver suites, their scripts and benches use its public face, src/compute/lxd-engine.ts',
  },
  {
    files: (path) => path.startsWith('src/compute/') && !(path in computeOnServersNotYetMoved),
    forbids: (target) => /^src\/servers\//.test(target),
    why: 'servers use compute, never the reverse: the seam owns its model (transitions, machine facts, reports)',
  },
  {
    files: (path) => path.startsWith('src/http/') && !path.endsWith('.test.ts'),
    forbids: (target) => /^src\/api\//.test(target),
    why: 'the HTTP floor is handed the APIs it serves (src/api/served-apis.ts): it never reaches up into them',
  },
  {
    files: (path) => path.startsWith('console/'),
    forbids: (target) => /^(src|bin|test)\//.test(target) || /^sdk\/src\//.test(target),
    why: 'the console only talks to the API, through the SDK package',
  },
];

function violations(): string[] {
  const found: string[] = [];
  for (const top of ['src', 'bin', 'sdk', 'cli', 'console', 'testing', 'test', 'scripts', 'bench']) {
    for (const file of sourceFiles(join(root, top))) {
      const path = relative(root, file);
      const applicable = rules.filter((rule) => rule.files(path));
      if (!applicable.length) continue;
      for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
        const target = specifier.startsWith('.') ? relative(root, resolve(dirname(file), specifier)) : specifier;
        for (const rule of applicable)
          if (rule.forbids(target)) found.push(`${path} imports ${specifier}: ${rule.why}`);
      }
    }
  }
  return found;
}

test('no module crosses a package or layer boundary', () => {
  assert.deepEqual(violations(), []);
});

test('each file the boundary lists excuse still needs its excuse', () => {
  const importers = (path: string, target: RegExp) =>
    importsOf(readFileSync(join(root, path), 'utf8')).some((specifier) =>
      target.test(relative(root, resolve(root, dirname(path), specifier))),
    );
  assert.deepEqual(
    Object.keys(computeOnServersNotYetMoved).filter((path) => !importers(path, /^src\/servers\//)),
    [],
    'imports src/servers no more: take it off computeOnServersNotYetMoved',
  );
});

test('a planted import of the LXD driver, of servers from compute, and of an API from the HTTP floor, are reported', () => {
  const lxd = rules.find((rule) => rule.why.startsWith('the LXD driver'))!;
  assert.equal(lxd.files('src/server-console/console.service.ts'), true);
  assert.equal(lxd.forbids('src/compute/lxd/console.ts'), true);
  assert.equal(lxd.files('src/compute/registry.ts'), false);
  assert.equal(lxd.files('src/compute/lxd-engine.ts'), false);
  // The command line, the real-driver suites, their scripts and benches: the public face only.
  for (const path of [
    'bin/nubis.ts',
    'test/lxd/support.ts',
    'test/cluster/support.ts',
    'scripts/test-lxd.ts',
    'bench/lxd.ts',
  ])
    assert.equal(lxd.files(path), true, path);
  assert.equal(lxd.forbids('src/compute/lxd-engine.ts'), false);
  assert.equal(lxd.forbids(relative(root, resolve(root, 'test/lxd', '../../src/compute/lxd/lxd-client.ts'))), true);
  const seam = rules.find((rule) => rule.why.startsWith('servers use compute'))!;
  assert.equal(seam.files('src/compute/traffic-meter.ts'), true);
  assert.equal(seam.forbids('src/servers/power-state.ts'), true);
  assert.equal(seam.files('src/servers/server.service.ts'), false);
  const floor = rules.find((rule) => rule.why.startsWith('the HTTP floor'))!;
  assert.equal(floor.files('src/http/app.ts'), true);
  assert.equal(floor.forbids('src/api/v1_3/server.routes.ts'), true);
  assert.equal(floor.files('src/api/served-apis.ts'), false);
});

test('the import reader sees static, type-only, re-exported and dynamic imports', () => {
  const source = [
    "import Fastify from 'fastify';",
    "import type { X } from '../http/app.ts';",
    "export { y } from './y.ts';",
    "const z = await import('./z.ts');",
  ].join('\n');
  assert.deepEqual(importsOf(source), ['fastify', '../http/app.ts', './y.ts', './z.ts']);
});

test('a service importing HTTP is reported', () => {
  const rule = rules[0];
  assert.equal(rule.files('src/servers/server.service.ts'), true);
  assert.equal(rule.forbids(relative(root, resolve(root, 'src/servers', '../http/app.ts'))), true);
  assert.equal(rule.forbids('fastify'), true);
  assert.equal(rule.forbids('kysely'), false);
  // The HTTP area's variables are declarations, which the configuration assembles.
  assert.equal(rule.files('src/config.ts'), true);
  assert.equal(rule.forbids('src/http/http.config.ts'), false);
});

test("an area's configuration importing anything but the configuration's pieces is reported", () => {
  const rule = rules.find((one) => one.why.startsWith("an area's configuration"))!;
  assert.equal(rule.files('src/http/http.config.ts'), true);
  assert.equal(rule.files('src/http/app.ts'), false);
  assert.equal(rule.forbids('fastify'), true);
  assert.equal(rule.forbids('src/http/app.ts'), true);
  assert.equal(rule.forbids('src/platform/clock.ts'), true);
  assert.equal(rule.forbids('src/platform/config-parsers.ts'), false);
  assert.equal(rule.forbids('node:net'), false);
});

// Where things live (issue 28): a service returns domain values and the API layer formats them,
// and queries sit in repositories. What has not moved yet is named below with its reason, so the
// lists show the work left; an entry whose file no longer needs it fails the check too.

interface SourceFile {
  /** From the repository root. */
  path: string;
  source: string;
}

function srcFiles(): SourceFile[] {
  return sourceFiles(join(root, 'src')).map((file) => ({
    path: relative(root, file),
    source: readFileSync(file, 'utf8'),
  }));
}

/** Formatters of dates and money for the wire: the API layer's (v1_3, v1, admin), never a service's. */
const formatters = ['isoSeconds', 'isoOrNull', 'toDollars', 'toCents', 'formatMoney', 'legacyTimestamp'];

/**
 * Services (and the modules the API layer calls, whatever their names) that still import a
 * formatter, and why: what is left for now, or text for people rather than a wire shape.
 */
export const formattingServices: Record<string, string> = {
  'src/events/event-payload.ts': 'a webhook’s body: a shape sent outside the API, in a module of its own',
  'src/sweeps/catch-up.ts': 'an error message names the last instant the clock may reach (text, not a shape)',
};

/**
 * The modules of the domain the API layer imports (src/api, outside src/http and src/platform):
 * what a route calls is a service, whatever its file is named (invoice-items.ts, invoice-sum.ts).
 */
export function modulesTheApiCalls(files: SourceFile[]): Set<string> {
  const called = new Set<string>();
  for (const { path, source } of files) {
    if (!path.startsWith('src/api/')) continue;
    for (const specifier of importsOf(source)) {
      if (!specifier.startsWith('.')) continue;
      const target = relative(root, resolve(root, dirname(path), specifier));
      if (!/^src\/(api|http|platform)\//.test(target)) called.add(target);
    }
  }
  return called;
}

/** The formatters each service (a `*.service.ts`, or a module in `services`) imports: `path imports name`. */
export function formatterImports(files: SourceFile[], services = new Set<string>()): string[] {
  const found: string[] = [];
  const imports = /(?:^|[\s;])import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"][^'"]+['"]/g;
  for (const { path, source } of files) {
    if (!path.endsWith('.service.ts') && !services.has(path)) continue;
    for (const match of source.matchAll(imports))
      for (const part of match[1].split(',')) {
        const name = part
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0];
        if (formatters.includes(name)) found.push(`${path} imports ${name}`);
      }
  }
  return found;
}

/**
 * Where query-builder calls or `sql` templates may stay outside a repository (and outside
 * migrations and src/db, storage's own), and why: the file's header says so too.
 */
export const queriesBesideTheirLogic: Record<string, string> = {
  'src/accounts/account-lock.ts': 'the lock order: its locking statement is the order it documents',
};

/**
 * A query: a query-builder call (Kysely's selectFrom, selectNoFrom, insertInto, replaceInto,
 * updateTable, deleteFrom, mergeInto), a raw `sql` template (Kysely's tag, with or without a
 * type argument), or raw SQL text (sql.raw).
 */
const queryCall =
  /\b(?:selectFrom|selectNoFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto)\s*\(|\bsql(?:<[^`]*>)?`|\bsql\.raw\s*\(/;

/** Source files outside repositories, migrations, src/db and tests that write a query. */
export function filesWithQueries(files: SourceFile[]): string[] {
  return files
    .filter(({ path }) => path.startsWith('src/') && !/\.repository\.ts$|\.test\.ts$|^src\/db\//.test(path))
    .filter(({ source }) => source.split('\n').some((line) => !/^\s*(\/\/|\*|\/\*)/.test(line) && queryCall.test(line)))
    .map(({ path }) => path);
}

test('no service imports a date or money formatter but those listed, each of which still does', () => {
  const files = srcFiles();
  const found = formatterImports(files, modulesTheApiCalls(files));
  const offenders = new Set(found.map((line) => line.split(' ')[0]));
  assert.deepEqual(
    found.filter((line) => !(line.split(' ')[0] in formattingServices)),
    [],
  );
  assert.deepEqual(
    Object.keys(formattingServices).filter((path) => !offenders.has(path)),
    [],
    'formats no more: take it off formattingServices',
  );
});

test('no query outside repositories, migrations and src/db but in the listed files, each of which still has one', () => {
  const allowed = queriesBesideTheirLogic;
  const found = filesWithQueries(srcFiles());
  assert.deepEqual(
    found.filter((path) => !(path in allowed)),
    [],
  );
  assert.deepEqual(
    Object.keys(allowed).filter((path) => !found.includes(path)),
    [],
    'has no query left: take it off the list',
  );
});

test('a planted formatter in a service, and a planted query outside a repository, are reported', () => {
  const service = {
    path: 'src/widgets/widget.service.ts',
    source:
      "import { isoSeconds, type Clock } from '../platform/clock.ts';\nimport { toDollars as dollars } from '../platform/money.ts';",
  };
  assert.deepEqual(formatterImports([service]), [
    'src/widgets/widget.service.ts imports isoSeconds',
    'src/widgets/widget.service.ts imports toDollars',
  ]);
  assert.deepEqual(formatterImports([{ ...service, path: 'src/api/v1_3/widget.routes.ts' }]), []);
  // A module the API layer calls is a service whatever its name; one it does not call is not checked.
  const sums = { path: 'src/widgets/widget-sums.ts', source: service.source };
  const route = {
    path: 'src/api/v1_3/widget.routes.ts',
    source: "import { sums } from '../../widgets/widget-sums.ts';",
  };
  assert.deepEqual([...modulesTheApiCalls([route, sums])], ['src/widgets/widget-sums.ts']);
  assert.deepEqual(formatterImports([sums], modulesTheApiCalls([route, sums])), [
    'src/widgets/widget-sums.ts imports isoSeconds',
    'src/widgets/widget-sums.ts imports toDollars',
  ]);
  assert.deepEqual(formatterImports([sums]), []);
  const query = "export const n = (db) =>\n  db.selectFrom('widgets').selectAll().execute();";
  assert.deepEqual(filesWithQueries([{ path: 'src/widgets/widget.service.ts', source: query }]), [
    'src/widgets/widget.service.ts',
  ]);
  const raw = 'export const n = (db) =>\n  sql<{ n: number }>`select count(*) as n from widgets`.execute(db);';
  assert.deepEqual(filesWithQueries([{ path: 'src/widgets/widget-count.ts', source: raw }]), [
    'src/widgets/widget-count.ts',
  ]);
  assert.deepEqual(filesWithQueries([{ path: 'src/db/widget-count.ts', source: raw }]), []);
  // The other ways to write a query: a type argument that nests, raw text, the rarer builders.
  const others = [
    'const { rows } = await sql<{ names: Array<string> }>`select names from widgets`.execute(db);',
    "await db.executeQuery(sql.raw('delete from widgets').compile(db));",
    "await db.replaceInto('widgets').values(widget).execute();",
    "await db.mergeInto('widgets as w').using('parts as p', 'p.widget_id', 'w.id').whenMatched().thenDelete().execute();",
    'const { now } = await db.selectNoFrom((eb) => eb.val(1).as("now")).executeTakeFirstOrThrow();',
  ];
  assert.deepEqual(
    filesWithQueries(others.map((source, index) => ({ path: `src/widgets/widget-${index}.ts`, source }))),
    others.map((_, index) => `src/widgets/widget-${index}.ts`),
  );
  assert.deepEqual(
    filesWithQueries([
      { path: 'src/widgets/widget.repository.ts', source: query },
      { path: 'src/db/migrations/0001-widgets.ts', source: query },
      { path: 'src/widgets/widget.service.ts', source: '// db.selectFrom(…) lives in the repository' },
    ]),
    [],
  );
});
