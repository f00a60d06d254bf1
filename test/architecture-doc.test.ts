// docs/architecture.md's "Where is X" table, kept true: every row names a file that exists and a
// function (or const) that file declares. A rename or a move that forgets the document fails here.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

const root = resolve(import.meta.dirname, '..');

interface Pointer {
  question: string;
  file: string;
  name: string;
}

/** The rows of the table under `## Where is X`: `| question | \`file\` | \`function\` |`. */
export function wherePointers(markdown: string): Pointer[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Where is X'));
  if (!section) return [];
  const rows: Pointer[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const file = /^`([^`]+)`$/.exec(cells[2] ?? '')?.[1];
    const name = /^`([^`]+)`$/.exec(cells[3] ?? '')?.[1];
    if (file && name) rows.push({ question: cells[1], file, name });
  }
  return rows;
}

/** True when the source declares `name` as a function, class or const of its own. */
export function declares(source: string, name: string): boolean {
  return new RegExp(`(?:^|\\n)\\s*(?:export\\s+)?(?:async\\s+)?(?:function|class|const|let)\\s+${name}\\b`).test(
    source,
  );
}

test('every "where is X" row names a file that declares the named function', () => {
  const pointers = wherePointers(readFileSync(join(root, 'docs/architecture.md'), 'utf8'));
  assert.ok(pointers.length >= 10, `the table lists ${pointers.length} rows; expected the whole table`);
  const wrong: string[] = [];
  for (const { question, file, name } of pointers) {
    const path = join(root, file);
    if (!existsSync(path)) wrong.push(`${question}: ${file} does not exist`);
    else if (!declares(readFileSync(path, 'utf8'), name)) wrong.push(`${question}: ${file} declares no ${name}`);
  }
  assert.deepEqual(wrong, []);
});

test('the check itself: a moved function and a missing file are caught', () => {
  const table = [
    '## Where is X',
    '',
    '| where | file | function |',
    '|---|---|---|',
    '| resize | `src/servers/server-actions.service.ts` | `resizeServer` |',
    '| nothing | `src/nowhere.ts` | `ghost` |',
    '',
    '## Layout',
  ].join('\n');
  const pointers = wherePointers(table);
  assert.deepEqual(
    pointers.map((pointer) => pointer.name),
    ['resizeServer', 'ghost'],
  );
  assert.equal(declares('export async function resizeServer(ctx) {}', 'resizeServer'), true);
  assert.equal(declares('export async function resizeServers(ctx) {}', 'resizeServer'), false);
  assert.equal(declares('// resizeServer is elsewhere\nresizeServer(ctx);', 'resizeServer'), false);
  assert.equal(existsSync(join(root, 'src/nowhere.ts')), false);
});
