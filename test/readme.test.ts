// The README's configuration table is the one `nubis --help` prints: a variable added to
// src/config.ts without documenting it fails here.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { configTable } from '../src/config.ts';

test('the README documents every environment variable with its default', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const rows = configTable().split('\n').slice(2);
  assert.ok(rows.length > 30);
  const missing = rows.filter((row) => !readme.includes(row));
  assert.deepEqual(
    missing,
    [],
    'regenerate the table with: node -e "import(\'./src/config.ts\').then(m => console.log(m.configTable()))"',
  );
});
