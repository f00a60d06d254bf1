// The README and the docs/ pages it leads to, kept true: the configuration page is the table
// `nubis help config` prints (a variable added to src/config.ts without regenerating fails here),
// the README stays short with a contents list that leads somewhere, and every link between the
// pages names a file a clone has.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { configurationDoc, configurationDocPath } from '../scripts/configuration-doc.ts';

const root = resolve(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const pages = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a page's headings make. */
function anchors(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchor(match[1]!)));
}

/** Markdown links of a page that are neither web addresses nor mail: `[text](target)`. */
function localLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!)
    .filter((target) => !/^[a-z]+:/.test(target));
}

test('docs/configuration.md is the table src/config.ts makes', () => {
  assert.equal(
    readFileSync(configurationDocPath, 'utf8'),
    configurationDoc(),
    'regenerate it with: node scripts/configuration-doc.ts',
  );
});

test('the README is short and opens with a contents list whose entries lead to its sections', () => {
  const lines = readme.split('\n').length;
  assert.ok(lines <= 450, `the README has ${lines} lines: move reference text to docs/`);
  const contents = readme.split(/^## /m).find((part) => part.startsWith('Contents'));
  assert.ok(contents, 'the README has a Contents section');
  const targets = [...contents.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]!);
  assert.ok(targets.length >= 5);
  const headings = anchors(readme);
  assert.deepEqual(
    targets.filter((target) => !headings.has(target)),
    [],
  );
});

test('every link of the README and docs/ names a file of the repository, and a heading it has', () => {
  const broken: string[] = [];
  for (const page of pages) {
    const text = readFileSync(join(root, page), 'utf8');
    for (const link of localLinks(text)) {
      const [file, hash] = link.split('#') as [string, string | undefined];
      const path = file === '' ? join(root, page) : resolve(join(root, dirname(page)), file);
      if (!path.startsWith(`${root}/`) || !existsSync(path)) broken.push(`${page}: ${link}`);
      else if (hash && path.endsWith('.md') && !anchors(readFileSync(path, 'utf8')).has(hash))
        broken.push(`${page}: ${link} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the check itself: anchors as GitHub makes them', () => {
  assert.equal(anchor('Server mode: the first run'), 'server-mode-the-first-run');
  assert.equal(anchor("`@nubis/testing`'s start and reset"), 'nubistestings-start-and-reset');
  assert.deepEqual(localLinks('[a](docs/x.md#y) [b](https://example.com) [c](#z)'), ['docs/x.md#y', '#z']);
});

test('the README points at nothing outside the repository and keeps no session notes', () => {
  assert.doesNotMatch(readme, /\.\.\/shared|\/work\//);
  assert.doesNotMatch(readme, /closing note|\b(first|second|third|fourth|fifth|sixth) pass\b/i);
  // The CLI tour works on the server it created, not on someone else's id 1.
  assert.doesNotMatch(readme, /npx nubis (server|snapshot) \w+ 1\b/);
});
