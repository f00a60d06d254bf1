// docs/architecture.md's "Where is X" tables, kept true: every row names a file that exists and a
// function (or const, class, private method) that file declares, and a rule's row names rows that
// docs/decisions.md has. A rename or a move that forgets the document fails here.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

const root = resolve(import.meta.dirname, '..');

interface Pointer {
  question: string;
  file: string;
  name: string;
  /** The rows of docs/decisions.md a rule's row names (`"question"`), or null in a table without them. */
  decisions: string[] | null;
}

/**
 * The rows of the tables under `## Where is X`: `| question | \`file\` | \`function\` |`, and the
 * rules' `| rule | \`file\` | \`function\` | "decisions row", … |`.
 */
export function wherePointers(markdown: string): Pointer[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Where is X'));
  if (!section) return [];
  const rows: Pointer[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const file = /^`([^`]+)`$/.exec(cells[2] ?? '')?.[1];
    const name = /^`([^`]+)`$/.exec(cells[3] ?? '')?.[1];
    const decisions = cells.length > 5 ? [...(cells[4] ?? '').matchAll(/"([^"]+)"/g)].map((match) => match[1]!) : null;
    if (file && name) rows.push({ question: cells[1], file, name, decisions });
  }
  return rows;
}

/** True when the source declares `name` as a function, class or const of its own, or `#name` as a private method. */
export function declares(source: string, name: string): boolean {
  if (name.startsWith('#')) return new RegExp(`(?:^|\\n)\\s*(?:async\\s+)?${name}\\s*\\(`).test(source);
  return new RegExp(`(?:^|\\n)\\s*(?:export\\s+)?(?:async\\s+)?(?:function|class|const|let)\\s+${name}\\b`).test(
    source,
  );
}

/** The questions of docs/decisions.md's tables: each row's first cell. */
export function decisionQuestions(markdown: string): Set<string> {
  const questions = new Set<string>();
  for (const line of markdown.split('\n'))
    if (line.startsWith('|') && !line.startsWith('|---')) questions.add(line.split('|')[1]!.trim());
  return questions;
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

test('every rule row names the decisions.md rows that say what the rule is, and they are there', () => {
  const rules = wherePointers(readFileSync(join(root, 'docs/architecture.md'), 'utf8')).filter(
    (pointer) => pointer.decisions !== null,
  );
  assert.ok(rules.length >= 5, `the rules table lists ${rules.length} rows`);
  const questions = decisionQuestions(readFileSync(join(root, 'docs/decisions.md'), 'utf8'));
  const wrong: string[] = [];
  for (const { question, decisions } of rules) {
    if (!decisions?.length) wrong.push(`${question}: names no decisions.md row`);
    for (const row of decisions ?? [])
      if (!questions.has(row)) wrong.push(`${question}: decisions.md has no row "${row}"`);
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
    '| rule | file | function | decisions.md row |',
    '|---|---|---|---|',
    '| placement | `src/compute/registry.ts` | `#target` | "Placement", "Nowhere" |',
    '',
    '## Layout',
  ].join('\n');
  const pointers = wherePointers(table);
  assert.deepEqual(
    pointers.map((pointer) => pointer.name),
    ['resizeServer', 'ghost', '#target'],
  );
  assert.deepEqual(
    pointers.map((pointer) => pointer.decisions),
    [null, null, ['Placement', 'Nowhere']],
  );
  const questions = decisionQuestions('| question | what | why |\n|---|---|---|\n| Placement | LXD: … | … |');
  assert.equal(questions.has('Placement'), true);
  assert.equal(questions.has('Nowhere'), false);
  assert.equal(declares('  async #target(spec: MachineSpec): Promise<string> {', '#target'), true);
  assert.equal(declares('    const where = await this.#target(spec);', '#target'), false);
  assert.equal(declares('export async function resizeServer(ctx) {}', 'resizeServer'), true);
  assert.equal(declares('export async function resizeServers(ctx) {}', 'resizeServer'), false);
  assert.equal(declares('// resizeServer is elsewhere\nresizeServer(ctx);', 'resizeServer'), false);
  assert.equal(existsSync(join(root, 'src/nowhere.ts')), false);
});
