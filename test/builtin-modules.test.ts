// The `nubis` package's chunks read Node's built-ins through process.getBuiltinModule
// (scripts/builtin-modules.ts): each shape of import line rolldown writes becomes the same
// bindings, and nothing else in a chunk changes.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rewriteBuiltinImports } from '../scripts/builtin-modules.ts';

test('every import line of a built-in becomes bindings read from getBuiltinModule', () => {
  const chunk = [
    'import childProcess from "node:child_process";',
    'import fs, { chmodSync, readFileSync } from "node:fs";',
    'import { setTimeout as setTimeout$1 } from "node:timers/promises";',
    'import * as util$2 from "node:util";',
    'import { o as __toESM } from "./rolldown-runtime-C1I3wEg2.js";',
    'import WebSocket from "ws";',
    'const text = \'import fs from "node:fs";\';',
  ].join('\n');
  assert.equal(
    rewriteBuiltinImports(chunk),
    [
      'const childProcess = process.getBuiltinModule("node:child_process");',
      'const fs = process.getBuiltinModule("node:fs"); const { chmodSync, readFileSync } = process.getBuiltinModule("node:fs");',
      'const { setTimeout: setTimeout$1 } = process.getBuiltinModule("node:timers/promises");',
      'const util$2 = process.getBuiltinModule("node:util");',
      'import { o as __toESM } from "./rolldown-runtime-C1I3wEg2.js";',
      'import WebSocket from "ws";',
      'const text = \'import fs from "node:fs";\';',
    ].join('\n'),
  );
  // The bindings are the module's own values, as the ESM import gave them.
  const { readFileSync } = process.getBuiltinModule('node:fs');
  assert.equal(typeof readFileSync, 'function');
});
