// find-my-way (Fastify's router) builds each static route node's prefix matcher with `new Function`:
// about 500 at a start of Nubis (every route's nodes, split and rebuilt as routes are added, and
// each API scope's not-found routes in the tree of each of the 35 methods it knows), each one a
// script V8 compiles — about a seventh of `startInstance`'s CPU. The bundles (scripts/bundle.ts,
// scripts/pack.ts) give those nodes a closure that compares the same characters in a loop: the
// same answers, nothing compiled at a start. The sources keep find-my-way as it is.

import type { Plugin } from 'rolldown';

/** find-my-way's line that compiles a matcher, as in lib/node.js (find-my-way 9). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: find-my-way's source text, not a template
export const compiledMatcher = "return new Function('path', 'i', `'use strict'\\nreturn ${lines.join(' && ')}`)";

/** The same comparison as the compiled matcher: the prefix's characters after the first, from `i`. */
export const loopMatcher =
  'return function matchPrefix (path, i) { for (let j = 1; j < prefix.length; j++) if (path.charCodeAt(i + j) !== prefix.charCodeAt(j)) return false; return true }';

/** find-my-way/lib/node.js with its compiled matcher replaced; throws if the line is not there (another version). */
export function withLoopMatcher(code: string): string {
  if (!code.includes(compiledMatcher))
    throw new Error(
      'find-my-way/lib/node.js: the `new Function` prefix matcher was not found: check scripts/prefix-match.ts against the installed version',
    );
  return code.replace(compiledMatcher, loopMatcher);
}

export const prefixMatchWithoutEval: Plugin = {
  name: 'nubis-prefix-match-without-eval',
  transform(code, id) {
    if (!/[\\/]node_modules[\\/]find-my-way[\\/]lib[\\/]node\.js$/.test(id)) return null;
    return withLoopMatcher(code);
  },
};
