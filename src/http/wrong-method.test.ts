// The 405 look-up's paths that a parametric route would take: the static paths whose missing
// methods a `:param` or `*` route serves, across as many segments as the pattern spans.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wrongMethods } from './wrong-method.ts';

const known = (entries: [string, string[]][]) => new Map(entries.map(([path, methods]) => [path, new Set(methods)]));

test('a static path is shadowed by the parametric routes it matches, segment for segment or under a *', () => {
  const { shadowed } = wrongMethods(
    known([
      ['/admin/state/export', ['GET', 'HEAD']],
      ['/admin/state/:name', ['GET', 'HEAD', 'DELETE']],
      ['/files/a/b', ['GET', 'HEAD']],
      ['/files/*', ['POST']],
      ['/servers/list', ['GET', 'HEAD']],
      ['/servers/:id/boot', ['PUT']],
    ]),
  );
  assert.deepEqual(
    shadowed.map(({ path, methods, served }) => ({ path, methods, allow: served.allow })),
    [
      { path: '/admin/state/export', methods: ['DELETE'], allow: ['GET', 'HEAD'] },
      { path: '/files/a/b', methods: ['POST'], allow: ['GET', 'HEAD'] },
    ],
  );
});

test('the look-up answers a known path called with a method it does not serve, and only then', () => {
  const { lookup } = wrongMethods(known([['/servers/:id', ['GET', 'HEAD']]]));
  assert.deepEqual(lookup('DELETE', '/servers/7?x=1'), { allow: ['GET', 'HEAD'], named: ['GET'] });
  assert.equal(lookup('GET', '/servers/7'), null);
  assert.equal(lookup('DELETE', '/servers/7/boot'), null);
  assert.equal(lookup('PROPFIND', '/servers/7'), null);
});
