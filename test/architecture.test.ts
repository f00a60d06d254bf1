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
const rules: Rule[] = [
  {
    files: (path) =>
      path.startsWith('src/') && !isHttpLayer(path) && path !== 'src/instance.ts' && !path.endsWith('.test.ts'),
    forbids: (target) => /^(fastify|@fastify\/)/.test(target) || isHttpLayer(target),
    why: 'services and the domain never see HTTP (src/http, src/api, Fastify)',
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
      (/^src\//.test(target) && !/^src\/(config|instance)\.ts$/.test(target)) ||
      /^(bin|console|test|cli)\//.test(target) ||
      /^sdk\/src\//.test(target),
    why: '@nubis/testing starts Nubis from its configuration and assembly only, and talks to it through the SDK',
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
});
