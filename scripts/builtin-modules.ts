// Node's built-in modules in the bundles (scripts/bundle.ts, scripts/pack.ts) read through
// process.getBuiltinModule instead of an ESM import. An ESM import of a built-in builds its
// module facade, which reads every export, and a dozen are lazy getters that load more of Node:
// node:util's loads its diff and colour support (and creates stderr), node:fs's its streams and
// the promises API, node:http's undici. A `const { a, b } = process.getBuiltinModule('node:x')`
// reads only the names the chunk uses, as the bundled CommonJS packages' require() already does.
// Applied to the rendered chunks, where every import is one line of a few shapes.

import type { Plugin } from 'rolldown';

const importLine = /^import (?:([\w$]+)(?:, )?)?(?:\{ ([^}]*) \}|\* as ([\w$]+))? from "(node:[\w/]+)";$/gm;

/** `a`, `a as b` → `a`, `a: b` (a destructuring pattern). */
const pattern = (names: string) =>
  names
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => part.replace(/^(\S+) as (\S+)$/, '$1: $2'))
    .join(', ');

export function rewriteBuiltinImports(code: string): string {
  return code.replace(importLine, (_line, fallback: string | undefined, named, namespace, specifier: string) => {
    const module = `process.getBuiltinModule(${JSON.stringify(specifier)})`;
    const lines: string[] = [];
    // A default import and a namespace one are the module object itself (what require() gives).
    if (fallback) lines.push(`const ${fallback} = ${module};`);
    if (namespace) lines.push(`const ${namespace} = ${module};`);
    if (named) lines.push(`const { ${pattern(named)} } = ${module};`);
    return lines.join(' ');
  });
}

export const builtinModulesPlugin: Plugin = {
  name: 'nubis-builtin-modules',
  renderChunk: (code) => ({ code: rewriteBuiltinImports(code) }),
};
