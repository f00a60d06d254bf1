// What a start loads. Every `node --test` file that uses @nubis/testing, and every server
// process, pays for each module loaded at start (~0.25 ms of CPU apiece, and more for a large
// package's top-level code): a package needed only by a rare request loads with that request.
// Run in a fresh process, so nothing this test file loaded counts.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';

const root = resolve(import.meta.dirname, '..');

/** Starts an instance as @nubis/testing does (emulator, SQLite in memory) and lists what loaded. */
const child = `
import { registerHooks } from 'node:module';
const urls = [];
registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });
const { loadConfig } = await import(${JSON.stringify(`${root}/src/config.ts`)});
const { startInstance } = await import(${JSON.stringify(`${root}/src/instance.ts`)});
const running = await startInstance(loadConfig({
  NUBIS_MODE: 'emulator', PORT: '0', HOST: '127.0.0.1', DATA_DIR: ':memory:', LOG_LEVEL: 'silent',
  ADMIN_TOKEN: 'start-modules-admin-token', PASSWORD_HASH_COST: '10', SWEEPS: 'false',
}));
await running.close();
process.stdout.write(JSON.stringify({ urls, builtins: process.moduleLoadList }));
`;

function startLoads(): { packages: Set<string>; builtins: string[] } {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', child], { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const { urls, builtins } = JSON.parse(run.stdout) as { urls: string[]; builtins: string[] };
  const packages = new Set(urls.map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? ''));
  return { packages, builtins };
}

test('a start loads the server without the packages of rare requests', () => {
  const { packages, builtins } = startLoads();
  // The reader sees what loads: Fastify and Kysely always do.
  assert.ok(packages.has('fastify') && packages.has('kysely'), [...packages].join(' '));
  // Stripe: the first call to Stripe. pdfkit: the first invoice document. ws (with node:zlib
  // behind it): the first machine console opened.
  for (const rare of ['stripe', 'pdfkit', 'ws']) assert.ok(!packages.has(rare), `${rare} loaded at start`);
  // Node's bundled undici (fetch), which an ESM import of node:http loads for its facade.
  assert.ok(Array.isArray(builtins) && builtins.length > 0, 'process.moduleLoadList is readable');
  assert.deepEqual(
    builtins.filter((name) => /undici/.test(name)),
    [],
  );
  // node:zlib (ws's compression, prom-client's push gateway) and node:v8 (prom-client's default
  // metrics): nothing a start uses. (node:cluster loads anyway: node:net's listen asks for it.)
  assert.deepEqual(
    builtins.filter((name) => /^NativeModule (zlib|v8)$/.test(name)),
    [],
  );
});
