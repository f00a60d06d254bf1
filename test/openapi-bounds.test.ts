// Generated from the served OpenAPI document (issue 21, classes 2 and 6), over every operation:
//
// - every integer the API takes (a path, query or body field, nested ones included; and the
//   path ids, which take an id or a uuid) is sent 2^31, 2^53, 10^20, −1, 0 and its schema's
//   maximum: a value outside its schema is a 400 naming the field (a 404 for an id, which names
//   nothing), a value inside is answered as the schema promises; never a 5xx, on either database,
//   since a schema only lets through what the column behind it holds;
// - every field the JSON bodies of /v1.3 and /admin declare as a string is sent a number, a
//   boolean, an array and an object: a 400 naming the field as a wrong data type. (Fields that
//   take an id or a uuid, or a number or a numeric string, are unions and stay liberal; the form
//   bodies of /v1 are strings by nature.)
//
// No error-level log line comes of any of it.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { ADMIN_TOKEN, startTestInstance, type TestInstance } from './support/instance.ts';
import { createAccount, type TestAccount } from './support/accounts.ts';
import { deployServer } from './support/servers.ts';
import {
  ANSWER_DEADLINE_MS,
  dereference,
  type GenContext,
  type Json,
  type Operation,
  operations,
  type Schema,
  valid,
} from './support/openapi.ts';

/** The integers every integer field is sent, beside its schema's own maximum. */
const integers = [2 ** 31, 2 ** 53, 1e20, -1, 0];
/** What a string field is sent instead of a string. */
const notStrings: Json[] = [2.5, 12_345_678_901, true, ['text'], { text: 'text' }];

/**
 * Operations sent only values their schema refuses: one that is accepted would end the run
 * (reset, load, import), make later answers fail on purpose (fault rules), move the clock ten
 * years, never end (the stream) or send requests elsewhere (webhooks).
 */
const refusedOnly = new Set([
  'POST /admin/reset',
  'POST /admin/faults',
  'POST /admin/state/import',
  'POST /admin/state/load',
  'POST /admin/clock/advance',
  'GET /admin/events/stream',
  'POST /admin/accounts/{account}/webhooks',
]);

interface Field {
  op: Operation;
  in: 'path' | 'query' | 'body';
  /** The field's name as a 400 names it (dotted for a nested body field). */
  name: string;
  path: string[];
  schema: Schema;
}

function kinds(doc: Json, schemaIn: Schema): string[] {
  const schema = dereference(doc, schemaIn);
  const branches: Schema[] | undefined = schema.anyOf ?? schema.oneOf;
  if (branches) return branches.flatMap((branch) => kinds(doc, branch));
  if ('const' in schema) return [schema.const === null ? 'null' : typeof schema.const];
  if (Array.isArray(schema.enum)) return schema.enum.map((value: Json) => (value === null ? 'null' : typeof value));
  return [schema.type].flat().filter(Boolean);
}

/** Every field of a body schema, nested objects included, with its path. */
function bodyFields(doc: Json, schemaIn: Schema, path: string[] = []): { path: string[]; schema: Schema }[] {
  const schema = dereference(doc, schemaIn);
  const out: { path: string[]; schema: Schema }[] = [];
  for (const [key, sub] of Object.entries<Schema>(schema.properties ?? {})) {
    out.push({ path: [...path, key], schema: sub });
    const inner = dereference(doc, sub);
    if (inner.properties) out.push(...bodyFields(doc, inner, [...path, key]));
  }
  return out;
}

function fieldsOf(doc: Json, op: Operation): Field[] {
  const fields: Field[] = op.parameters.map((p) => ({ op, in: p.in, name: p.name, path: [p.name], schema: p.schema }));
  if (op.body)
    for (const { path, schema } of bodyFields(doc, op.body.schema))
      fields.push({ op, in: 'body', name: path.join('.'), path, schema });
  return fields;
}

/** Whether every branch of the schema is a list of values (`enum`, `const`) or null. */
function isListed(doc: Json, schemaIn: Schema): boolean {
  const schema = dereference(doc, schemaIn);
  const branches: Schema[] | undefined = schema.anyOf ?? schema.oneOf;
  if (branches) return branches.every((branch) => isListed(doc, branch));
  return 'const' in schema || Array.isArray(schema.enum) || schema.type === 'null';
}

/** Names the 400 of each API gives (v1.3 and the operator's `errors`, the legacy `fields`). */
function namedFields(body: Json): string[] {
  const list = Array.isArray(body?.errors) ? body.errors : Array.isArray(body?.fields) ? body.fields : [];
  return list.map((entry: Json) => String(entry.field));
}

/** An id names a resource: a value it cannot hold names none (404), as the spec says of ids. */
function isId(doc: Json, field: Field): boolean {
  if (field.in === 'path') return true;
  const last = field.path.at(-1) ?? '';
  return /(^|_)id$|ID$|^uuid$/.test(last) || kinds(doc, field.schema).includes('string');
}

describe('generated from /openapi.json: bounded integers and strict strings', () => {
  let nubis: TestInstance;
  let doc: Json;
  let ops: Operation[];
  let account: TestAccount;
  let victim: TestAccount;
  const ajv = new Ajv({ strict: false, validateFormats: false });
  const held = { servers: [] as (string | number)[], catalog: { regions: [101], images: [1001], plans: [1] } };

  before(async () => {
    // Budgets out of the way: the run sends register and login many times from one address.
    const unlimited = String(1_000_000);
    nubis = await startTestInstance(
      {
        RATE_REGISTER_PER_MINUTE: unlimited,
        RATE_LOGIN_PER_MINUTE: unlimited,
        RATE_LOGIN_PER_ADDRESS_PER_MINUTE: unlimited,
        RATE_RESET_PER_MINUTE: unlimited,
        RATE_ACTIVATE_PER_MINUTE: unlimited,
        RATE_ACCOUNT_UPDATE_PER_MINUTE: unlimited,
      },
      { captureLog: true },
    );
    doc = (await nubis.request('GET', '/openapi.json')).body;
    ops = operations(doc);
    account = await createAccount(nubis, { credit: 1_000_000 });
    victim = await createAccount(nubis);
    const created = await deployServer(nubis, account.token, { hostname: 'bounds.example.com', label: 'bounds' });
    held.servers.push(created.id, created.uuid);
  });

  after(async () => {
    await nubis?.close();
  });

  function context(): GenContext {
    const pools: GenContext['pools'] = {};
    for (const name of ['server_id', 'SUBID', 'id', 'uuid', 'server']) pools[name] = () => held.servers;
    for (const name of ['region', 'region_id', 'DCID']) pools[name] = () => held.catalog.regions;
    for (const name of ['image', 'image_id', 'OSID']) pools[name] = () => held.catalog.images;
    for (const name of ['plan', 'plan_id', 'PLAN', 'VPSPLANID']) pools[name] = () => held.catalog.plans;
    pools.account = () => [victim.id];
    pools.email = () => [victim.email];
    return { doc, pools, maxText: 40 };
  }

  /** One request the schemas accept, as values by parameter and a body (fixed seed: the same each run). */
  function baseline(op: Operation): { values: Record<string, Json>; body: Record<string, Json> } {
    const ctx = context();
    const values: Record<string, Json> = {};
    // Real values where the run holds some (a real server, the catalog's region), generated ones elsewhere.
    const one = (schema: Schema, name?: string) =>
      name && ctx.pools[name] ? ctx.pools[name]()[0] : fc.sample(valid(ctx, schema), { numRuns: 1, seed: 21 })[0];
    for (const p of op.parameters) if (p.required) values[p.name] = one(p.schema, p.name);
    const body: Record<string, Json> = {};
    if (op.body) {
      const schema = dereference(doc, op.body.schema);
      const required = new Set<string>(schema.required ?? []);
      for (const [key, sub] of Object.entries<Schema>(schema.properties ?? {}))
        if (required.has(key) || ctx.pools[key]) body[key] = one(sub, key);
    }
    return { values, body };
  }

  /** Sends the operation with one field set to `value` (the rest from the baseline, unless `alone`). */
  async function sendWith(field: Field, value: Json, alone = false) {
    const { op } = field;
    const base = baseline(op);
    const values = { ...base.values };
    let body: Record<string, Json> = alone ? {} : structuredClone(base.body);
    if (field.in === 'body') {
      let node = body;
      for (const key of field.path.slice(0, -1)) {
        if (typeof node[key] !== 'object' || node[key] === null || Array.isArray(node[key])) node[key] = {};
        node = node[key];
      }
      node[field.path.at(-1)!] = value;
    } else values[field.name] = value;
    const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(String(values[name])));
    const query = new URLSearchParams();
    for (const p of op.parameters)
      if (p.in === 'query' && values[p.name] !== undefined) query.set(p.name, String(values[p.name]));
    const headers: Record<string, string> = {};
    const token = op.access === 'operator' ? ADMIN_TOKEN : op.access === 'account' ? account.token : null;
    if (token) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined;
    if (op.body) {
      if (op.body.contentType.includes('json')) {
        headers['content-type'] = 'application/json';
        payload = JSON.stringify(body);
      } else {
        headers['content-type'] = op.body.contentType;
        const form = new URLSearchParams();
        for (const [key, item] of Object.entries(body))
          if (item !== null && item !== undefined) form.set(key, String(item));
        payload = form.toString();
      }
    }
    const url = `${nubis.url}${path}${query.size ? `?${query}` : ''}`;
    const response = await fetch(url, {
      method: op.method,
      headers,
      body: payload,
      signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
    });
    const text = await response.text();
    let parsed: Json = null;
    try {
      parsed = JSON.parse(text);
    } catch {}
    body = parsed;
    return { status: response.status, text, body, what: `${op.method} ${url} ${payload ?? ''}`.slice(0, 300) };
  }

  /** Customer operations first, then the operator's (which may change any account). */
  function ordered(): Operation[] {
    return [...ops.filter((op) => op.access !== 'operator'), ...ops.filter((op) => op.access === 'operator')];
  }

  it('takes from every integer field only what its schema allows, and no schema allows more than its column holds', async () => {
    let checked = 0;
    const problems: string[] = [];
    const unbounded: string[] = [];
    for (const op of ordered()) {
      const key = `${op.method} ${op.path}`;
      for (const field of fieldsOf(doc, op)) {
        const numeric = kinds(doc, field.schema).some((kind) => kind === 'number' || kind === 'integer');
        const id = isId(doc, field) && field.in === 'path';
        if (!numeric && !id) continue;
        // The document bounds every number it takes, within what a JavaScript number holds exactly.
        const schema = dereference(doc, field.schema);
        for (const branch of [schema, ...(schema.anyOf ?? schema.oneOf ?? [])].map((s: Schema) => dereference(doc, s)))
          if (
            [branch.type].flat().some((t) => t === 'integer' || t === 'number') &&
            !(branch.maximum <= Number.MAX_SAFE_INTEGER && branch.minimum >= -Number.MAX_SAFE_INTEGER) &&
            !('const' in branch) &&
            !branch.enum
          )
            unbounded.push(`${key} ${field.in} ${field.name}`);
        const validate = ajv.compile(schema);
        const maximum = [schema, ...(schema.anyOf ?? [])]
          .map((s: Schema) => dereference(doc, s).maximum)
          .find(Number.isFinite);
        for (const value of maximum === undefined ? integers : [...integers, maximum]) {
          const inside = validate(value);
          if (inside && refusedOnly.has(key)) continue;
          const answer = await sendWith(field, value, refusedOnly.has(key));
          const where = `${field.in} ${field.name} = ${value}: ${answer.what} → ${answer.status} ${answer.text.slice(0, 300)}`;
          checked++;
          if (answer.status >= 500) problems.push(`5xx: ${where}`);
          else if (!op.responses.has(answer.status)) problems.push(`undocumented status: ${where}`);
          else if (!inside) {
            const named = answer.status === 400 ? namedFields(answer.body) : [];
            // An id that names nothing is a 404, unless another field was refused first.
            const refusedAsId =
              isId(doc, field) && (answer.status === 404 || (field.in === 'path' && named.length > 0));
            if (!refusedAsId && !named.includes(field.name)) problems.push(`not a 400 naming the field: ${where}`);
          }
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(unbounded, [], 'integer fields without bounds in the document');
    assert.ok(checked > 300, `only ${checked} integer requests`);
  });

  it('refuses anything but a string for a string field of the JSON bodies of /v1.3 and /admin', async () => {
    let checked = 0;
    const problems: string[] = [];
    for (const op of ordered()) {
      const key = `${op.method} ${op.path}`;
      if (!op.body?.contentType.includes('json') || op.path.startsWith('/v1/')) continue;
      for (const field of fieldsOf(doc, op)) {
        if (field.in !== 'body') continue;
        const taken = kinds(doc, field.schema);
        if (taken.length === 0 || !taken.every((kind) => kind === 'string' || kind === 'null')) continue;
        for (const value of notStrings) {
          const answer = await sendWith(field, value, refusedOnly.has(key));
          const where = `${field.name} = ${JSON.stringify(value)}: ${answer.what} → ${answer.status} ${answer.text.slice(0, 300)}`;
          checked++;
          const entry = (answer.status === 400 ? (answer.body?.errors ?? []) : []).find(
            (e: Json) => e.field === field.name,
          );
          // A string from a list is refused as a value not listed; any other as a wrong type.
          if (!entry || !(isListed(doc, field.schema) || /type/.test(entry.reason))) problems.push(where);
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(checked > 150, `only ${checked} string requests`);
  });

  it('wrote no error-level log line for any of it', () => {
    assert.deepEqual(nubis.errorLog(), []);
  });
});
