// Class 1 of issue 10: no request may stall the event loop through a schema `pattern`. Generated
// from the served OpenAPI document: every string field with a pattern (path, query and body, on
// every API) is found, each pattern is checked to be expressible on the linear-time engine (RE2)
// and bounded by a maxLength, and each field is then sent adversarial values (repetitions of the
// characters its pattern accepts, ending in one it refuses, up to the body limit) while a real
// user keeps using the API. Before the fix one such e-mail stalled the process for over a minute.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RE2JS } from 're2js';
import { ADMIN_TOKEN, startTestInstance, type TestInstance } from '../support/instance.ts';
import { createAccount, type TestAccount } from '../support/accounts.ts';

let nubis: TestInstance;
let account: TestAccount;
before(async () => {
  nubis = await startTestInstance();
  account = await createAccount(nubis);
});
after(async () => {
  await nubis.close();
});

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is walked as plain JSON
type Json = any;

interface PatternedField {
  method: string;
  path: string;
  where: 'path' | 'query' | 'body';
  /** The parameter name, or the property path in the body. */
  name: string[];
  contentType?: string;
  pattern: string;
  maxLength?: number;
  security: string | null;
}

function resolve(doc: Json, schema: Json): Json {
  let current = schema;
  for (let depth = 0; current?.$ref && depth < 20; depth++) {
    const ref = String(current.$ref);
    current = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: Json, key) => node?.[key], doc);
  }
  return current;
}

/** Every string schema with a pattern inside `schema`, with the property path leading to it. */
function patternedStrings(doc: Json, schema: Json, path: string[] = [], seen = new Set<Json>()): [string[], Json][] {
  const node = resolve(doc, schema);
  if (!node || typeof node !== 'object' || seen.has(node)) return [];
  seen.add(node);
  const found: [string[], Json][] = [];
  if (typeof node.pattern === 'string') found.push([path, node]);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const part of node[key] ?? []) found.push(...patternedStrings(doc, part, path, seen));
  for (const [name, property] of Object.entries(node.properties ?? {}))
    found.push(...patternedStrings(doc, property, [...path, name], new Set(seen)));
  if (node.items) found.push(...patternedStrings(doc, node.items, [...path, '0'], seen));
  return found;
}

function fieldsOf(doc: Json): PatternedField[] {
  const fields: PatternedField[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      if (typeof operation !== 'object' || !operation || !('responses' in operation)) continue;
      const security = operation.security ?? doc.security ?? [];
      const scheme = security.length ? Object.keys(security[0])[0] : null;
      const base = { method: method.toUpperCase(), path, security: scheme ?? null };
      for (const parameter of operation.parameters ?? []) {
        const where = parameter.in as PatternedField['where'];
        if (where !== 'path' && where !== 'query') continue;
        for (const [, schema] of patternedStrings(doc, parameter.schema))
          fields.push({ ...base, where, name: [parameter.name], pattern: schema.pattern, maxLength: schema.maxLength });
      }
      for (const [contentType, content] of Object.entries<Json>(operation.requestBody?.content ?? {}))
        for (const [name, schema] of patternedStrings(doc, content.schema))
          fields.push({
            ...base,
            where: 'body',
            name,
            contentType,
            pattern: schema.pattern,
            maxLength: schema.maxLength,
          });
    }
  }
  return fields;
}

/** Characters worth repeating against a pattern: its literals, and one of each common class. */
function alphabet(pattern: string): string[] {
  const literals = pattern.replace(/\\./g, '').replace(/[\^$()[\]{}|?*+,\d]/g, '');
  return [...new Set([...literals, 'a', 'F', '0', '.', '@', '-', ' ', 'é'])];
}

const BODY_LIMIT = 256 * 1024;
// Each value fits the body limit (in JSON or form encoding), or a URL (é takes 6 characters encoded).
const PATH_LIMIT = 2000;

/** Characters that end a run and make a match fail late (the backtracking trigger). */
const closers = ['@', ' ', '!', '\u0000'];

/**
 * Adversarial values: a run of one character, with and without a `c@` lead, closed by a refused
 * one. All of them for the first field of each pattern; a sample of them for the others.
 */
function hostileValues(pattern: string, limit: number, all: boolean, seed: number): string[] {
  const values: string[] = [];
  for (const repeated of alphabet(pattern))
    for (const closer of closers)
      for (const lead of ['', `${repeated}@`]) values.push(`${lead}${repeated.repeat(limit)}${closer}`);
  return all ? values : [0, 1, 2].map((k) => values[(seed * 7 + k * 13) % values.length]!);
}

function setAt(target: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  let node: Record<string, unknown> = target;
  for (const [i, key] of path.entries()) {
    if (i === path.length - 1) node[key] = value;
    else {
      node[key] ??= /^\d+$/.test(path[i + 1]!) ? [] : {};
      node = node[key] as Record<string, unknown>;
    }
  }
  return target;
}

async function send(field: PatternedField, value: string): Promise<{ status: number; body: string }> {
  const token = field.security === 'operator' ? ADMIN_TOKEN : field.security ? account.token : null;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  let url = field.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    field.where === 'path' && name === field.name[0] ? encodeURIComponent(value) : '1',
  );
  if (field.where === 'query') url += `?${field.name[0]}=${encodeURIComponent(value)}`;
  let body: string | undefined;
  if (field.where === 'body') {
    headers['content-type'] = field.contentType ?? 'application/json';
    body = field.contentType?.includes('form')
      ? new URLSearchParams({ [field.name.join('.')]: value }).toString()
      : JSON.stringify(setAt({}, field.name, value));
  }
  const response = await fetch(nubis.url + url, { method: field.method, headers, body });
  return { status: response.status, body: await response.text() };
}

test('every pattern in the OpenAPI document runs on the linear engine and under a maxLength', async () => {
  const doc = (await nubis.request('GET', '/openapi.json')).body;
  const fields = fieldsOf(doc);
  assert.ok(fields.length >= 20, `only ${fields.length} patterned fields found: the walk missed some`);
  for (const field of fields) {
    const where = `${field.method} ${field.path} ${field.where} ${field.name.join('.')}`;
    assert.doesNotThrow(() => RE2JS.compile(field.pattern), `${where}: /${field.pattern}/ is not RE2 syntax`);
    assert.ok(
      typeof field.maxLength === 'number' && field.maxLength <= 4096,
      `${where}: a pattern without a small maxLength`,
    );
  }
});

// The bound is a test timeout, not a measurement: the generated values take 10-25 s in all on
// a linear engine, while on a backtracking one a single such e-mail stalled the process for
// over a minute, and each pattern gets dozens of them (so the test fails there). 300 s rather
// than 60: bounded but slow work, which took over 60 s on a loaded 2-core machine.
test('adversarial values in every patterned field are refused while a real user is served', {
  timeout: 300_000,
}, async () => {
  const doc = (await nubis.request('GET', '/openapi.json')).body;
  const fields = fieldsOf(doc);
  let hostileDone = false;
  let servedMeanwhile = 0;
  const user = (async () => {
    while (!hostileDone) {
      const info = await nubis.request('GET', '/v1.3/account/info', { token: account.token });
      assert.equal(info.status, 200);
      servedMeanwhile++;
    }
  })();
  const answers: { where: string; status: number; body: string }[] = [];
  try {
    // A few fields at a time, so the user's requests queue behind at most a handful.
    const seen = new Set<string>();
    const queue = fields.flatMap((field, index) => {
      const kind = `${field.where === 'body' ? 'body' : 'url'} ${field.pattern}`;
      const all = !seen.has(kind);
      seen.add(kind);
      const limit = field.where === 'body' ? Math.floor((BODY_LIMIT - 1024) / 2) : PATH_LIMIT;
      return hostileValues(field.pattern, limit, all, index).map((value) => [field, value] as const);
    });
    const workers = Array.from({ length: 4 }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [field, value] = next;
        const answer = await send(field, value);
        answers.push({ where: `${field.method} ${field.path} ${field.where} ${field.name.join('.')}`, ...answer });
      }
    });
    await Promise.all(workers);
  } finally {
    hostileDone = true;
    await user;
  }
  assert.ok(answers.length > fields.length, 'every field got several values');
  for (const answer of answers) {
    assert.ok(
      answer.status >= 400 && answer.status < 500 && answer.status !== 413,
      `${answer.where}: ${answer.status} ${answer.body.slice(0, 200)}`,
    );
  }
  assert.ok(servedMeanwhile > 0, 'the real user was answered while the hostile values were checked');
});
