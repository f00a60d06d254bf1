// The bundles' find-my-way matches a static node's prefix with a loop instead of a compiled
// function (scripts/prefix-match.ts): the installed lib/node.js, rewritten, answers every
// prefix and path as the original does, and a version without the expected line stops the build.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { withLoopMatcher } from '../scripts/prefix-match.ts';

const require = createRequire(import.meta.url);
const file = require.resolve('find-my-way/lib/node.js');
const original = readFileSync(file, 'utf8');

interface NodeModule {
  createStaticNode(prefix: string): { matchPrefix(path: string, i: number): boolean };
}

/** Evaluates a version of lib/node.js as CommonJS, its own requires resolved beside it. */
function load(code: string): NodeModule {
  const module = { exports: {} as NodeModule };
  new Function('require', 'module', 'exports', code)(createRequire(file), module, module.exports);
  return module.exports;
}

test('the rewritten node module compiles no matcher and matches as the original', () => {
  const rewritten = withLoopMatcher(original);
  assert.doesNotMatch(rewritten, /new Function/);
  const [before, after] = [load(original), load(rewritten)];
  const prefixes = ['/', 'v1', '.3/', 'server/', '/v1.3/server/', 'admin', 'a-long-prefix-of-15', '/x'];
  const paths = ['/v1.3/server/list', '/admin/accounts', 'v1', '/v', '', '/x', 'a-long-prefix-of-15/x', 'server'];
  let compared = 0;
  for (const prefix of prefixes) {
    const [was, is] = [before.createStaticNode(prefix), after.createStaticNode(prefix)];
    for (const path of paths)
      for (let i = 0; i <= path.length; i++) {
        assert.equal(is.matchPrefix(path, i), was.matchPrefix(path, i), `${prefix} in ${path} at ${i}`);
        compared++;
      }
  }
  assert.ok(compared > 500);
});

test('a find-my-way without the compiled matcher stops the build', () => {
  assert.throws(() => withLoopMatcher(original.replace('new Function', 'Function')), /prefix matcher was not found/);
});
