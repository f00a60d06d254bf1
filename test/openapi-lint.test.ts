// The OpenAPI document as served, linted with Redocly's recommended ruleset (@redocly/openapi-core):
// no errors, and no warnings at all about operation ids, summaries, descriptions or servers.
// Beyond the linter: every operation's id is unique and written by hand in camelCase.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { startTestInstance, type JsonBody, type TestInstance } from './support/instance.ts';
import { createAccount } from './support/accounts.ts';

let nubis: TestInstance;
let document: JsonBody;
before(async () => {
  nubis = await startTestInstance();
  document = (await nubis.request('GET', '/openapi.json')).body;
});
after(() => nubis.close());

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
    absoluteRef: `${nubis.url}/openapi.json`,
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

test('every error example carries the status line of its own status', () => {
  let checked = 0;
  for (const { method, path, operation } of operations()) {
    const responses = operation.responses as Record<string, { content?: Record<string, { example?: JsonBody }> }>;
    for (const [status, response] of Object.entries(responses)) {
      const example = response.content?.['application/json']?.example;
      if (Number(status) < 400 || !example) continue;
      const line =
        example.errors?.response ?? (example.response_code !== undefined ? `${example.response_code}` : null);
      if (line === null) continue; // a 400 lists fields
      assert.ok(String(line).startsWith(status), `${method} ${path} ${status}: example says ${line}`);
      checked++;
    }
  }
  assert.ok(checked > 300, `${checked} error examples checked`);
});

test('public operations need no token, and say so with security []', async () => {
  const publicIds = [
    'registerAccount',
    'login',
    'activateAccount',
    'resetPassword',
    'listRegions',
    'listImages',
    'listPlans',
    'legacyListLocations',
    'legacyListTemplates',
    'legacyListPlans',
    'getHealth',
    'getReadiness',
  ];
  const byId = new Map([...operations()].map((entry) => [entry.operation.operationId, entry]));
  for (const id of publicIds) assert.deepEqual(byId.get(id)?.operation.security, [], `${id} is public`);
  // The document's own word is checked against the server: each operation marked public answers without a token.
  for (const { method, path, operation } of operations()) {
    if (!Array.isArray(operation.security) || operation.security.length > 0) continue;
    const concrete = path.replace('{DCID}', '101');
    const body = method === 'get' ? undefined : {};
    const answer = await nubis.request(method.toUpperCase(), concrete, { body });
    assert.notEqual(answer.status, 401, `${method} ${path} is marked public but wants a token`);
  }
  assert.equal(byId.get('getAccount')?.operation.security, undefined, 'account operations inherit the bearer token');
});

test('the examples are real values of the shipped catalog, and harmless', async () => {
  const account = await createAccount(nubis);
  const create = document.paths['/v1.3/server/create'].post.requestBody.content['application/json'].example;
  const created = await nubis.request('POST', '/v1.3/server/create', { token: account.token, body: create });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const advance = document.paths['/admin/clock/advance'].post.requestBody.content['application/json'].example;
  assert.ok(advance.seconds > 0 && advance.seconds <= 86_400, `the clock example moves ${advance.seconds} s`);
  assert.equal((await nubis.admin('POST', '/admin/clock/advance', advance)).status, 200);
  const power = document.components.schemas.PowerState;
  assert.ok(power.enum.includes('running') && power.enum.includes('provisioning'), 'power is an enumeration');
  assert.equal(
    document.components.schemas.Server.properties.power.$ref,
    '#/components/schemas/PowerState',
    'the Server names its power enumeration',
  );
});
