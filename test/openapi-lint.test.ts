// The OpenAPI document as served, linted with Redocly's recommended ruleset (@redocly/openapi-core):
// no errors, and no warnings at all about operation ids, summaries, descriptions or servers.
// Beyond the linter: every operation's id is unique and written by hand in camelCase.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { startTestServer, type TestServer } from './support/server.ts';

let server: TestServer;
// biome-ignore lint/suspicious/noExplicitAny: the document is walked as plain JSON
let document: any;
before(async () => {
  server = await startTestServer();
  document = (await server.request('GET', '/openapi.json')).body;
});
after(() => server.close());

const methods = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];
function* operations(): Generator<{ method: string; path: string; operation: Record<string, unknown> }> {
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>))
    for (const method of methods)
      if (item[method]) yield { method, path, operation: item[method] as Record<string, unknown> };
}

test('the served document lints clean with Redocly recommended rules', async () => {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({
    source: JSON.stringify(document),
    absoluteRef: `${server.url}/openapi.json`,
    config,
  });
  const shown = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`);
  const errors = shown.filter((line) => line.startsWith('error'));
  assert.deepEqual(errors, [], `${errors.length} errors:\n${errors.join('\n')}`);
  const forbidden = shown.filter((line) => /operation-?id|summary|description|server/i.test(line));
  assert.deepEqual(forbidden, [], forbidden.join('\n'));
});

test('every operation has a unique camelCase operationId, a summary and a description', () => {
  const seen = new Map<string, string>();
  const missing: string[] = [];
  for (const { method, path, operation } of operations()) {
    const where = `${method.toUpperCase()} ${path}`;
    const id = operation.operationId;
    if (typeof id !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(id)) missing.push(`${where}: operationId ${id}`);
    else if (seen.has(id)) missing.push(`${where}: operationId ${id} also names ${seen.get(id)}`);
    else seen.set(id, where);
    if (!operation.summary) missing.push(`${where}: no summary`);
    if (!operation.description) missing.push(`${where}: no description`);
  }
  assert.deepEqual(missing, []);
  assert.ok(seen.size > 80, `${seen.size} operations`);
});
