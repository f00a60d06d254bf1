// Property-based testing from an OpenAPI document: operations, request generators (valid ones
// from the schemas, with real ids where the caller has them, and invalid ones of every kind) and
// the checks every answer must pass. Used against the real server and against a fake one with a
// planted fault (which proves the generators find faults and shrink them).

import { Ajv, type ValidateFunction } from 'ajv';
import fc from 'fast-check';

// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is read as plain JSON
export type Json = any;
export type Schema = Record<string, Json>;

export type Access = 'public' | 'account' | 'operator';

export interface Operation {
  method: string;
  /** The OpenAPI path, `{name}` for parameters. */
  path: string;
  id: string;
  access: Access;
  parameters: { name: string; in: 'path' | 'query'; required: boolean; schema: Schema }[];
  body: { contentType: string; schema: Schema; required: boolean } | null;
  /** Status → the response's JSON schema (null when it documents no JSON body). */
  responses: Map<number, Schema | null>;
}

/** Resolves `#/components/...` (and other local) references of a document, recursively on demand. */
export function dereference(doc: Json, schema: Schema | undefined): Schema {
  let current: Schema = schema ?? {};
  for (let depth = 0; depth < 16 && typeof current.$ref === 'string'; depth++) {
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}`);
    let node: Json = doc;
    for (const part of ref.slice(2).split('/')) node = node?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
    if (!node) throw new Error(`unresolved $ref ${ref}`);
    current = node;
  }
  return current;
}

export function operations(doc: Json): Operation[] {
  const list: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, raw] of Object.entries<Json>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const op = dereference(doc, raw);
      const security: Json[] = op.security ?? doc.security ?? [];
      const access: Access =
        security.length === 0 ? 'public' : security.some((s) => 'operator' in s) ? 'operator' : 'account';
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map((p: Json) => dereference(doc, p))
        .filter((p: Json) => p.in === 'path' || p.in === 'query')
        .map((p: Json) => ({
          name: p.name,
          in: p.in,
          required: p.in === 'path' || p.required === true,
          schema: dereference(doc, p.schema),
        }));
      let body: Operation['body'] = null;
      if (op.requestBody) {
        const requestBody = dereference(doc, op.requestBody);
        const [contentType, media] = Object.entries<Json>(requestBody.content ?? {})[0] ?? [];
        if (contentType)
          body = { contentType, schema: dereference(doc, media.schema), required: requestBody.required === true };
      }
      const responses = new Map<number, Schema | null>();
      for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
        const resolved = dereference(doc, response);
        const json = Object.entries<Json>(resolved.content ?? {}).find(([type]) => type.includes('json'));
        responses.set(Number(status), json?.[1]?.schema ?? null);
      }
      list.push({
        method: method.toUpperCase(),
        path,
        id: op.operationId ?? `${method.toUpperCase()} ${path}`,
        access,
        parameters,
        body,
        responses,
      });
    }
  }
  return list;
}

/**
 * Validators of documented response bodies; `$ref`s resolve against the whole document. An answer
 * holds exactly the documented fields: every object that lists its properties is closed, since
 * some routes send what they built with JSON.stringify (asBuilt), and nothing then drops a field
 * the document does not name.
 */
export function responseValidators(doc: Json): (op: Operation, status: number) => ValidateFunction | null {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...closed(doc), $id: 'openapi' });
  const cache = new Map<string, ValidateFunction | null>();
  return (op, status) => {
    const key = `${op.id} ${status}`;
    if (!cache.has(key)) {
      const schema = op.responses.get(status);
      cache.set(key, schema ? ajv.compile(rebase(closed(schema, doc))) : null);
    }
    return cache.get(key) ?? null;
  };
}

/**
 * The schema with `additionalProperties: false` on each object that lists its properties. An allOf
 * of such objects (some given by $ref) becomes one object with all their fields, closed as a whole:
 * closing each member alone would refuse the other members' fields.
 */
function closed(schema: Json, doc: Json = schema, inAllOf = false): Json {
  if (Array.isArray(schema)) return schema.map((member) => closed(member, doc, inAllOf));
  if (typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema.allOf)) {
    const members: Json[] = schema.allOf.map((member: Schema) => dereference(doc, member));
    const plain = (member: Json) =>
      member.type === 'object' && member.properties && !member.allOf && !member.anyOf && !member.oneOf;
    if (members.every(plain) && !members.some((member) => 'additionalProperties' in member)) {
      const { allOf: _allOf, ...rest } = schema;
      return closed(
        {
          ...rest,
          type: 'object',
          properties: Object.assign({}, ...members.map((member) => member.properties)),
          required: [...new Set(members.flatMap((member) => member.required ?? []))],
        },
        doc,
      );
    }
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) out[key] = closed(value, doc, key === 'allOf');
  if (!inAllOf && out.type === 'object' && out.properties && !('additionalProperties' in out))
    out.additionalProperties = false;
  return out;
}

/** Points a schema's local references into the document registered as `openapi`. */
function rebase(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema))
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `openapi${value}` : rebase(value);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Generators

/** Real values the caller holds, by field or parameter name (ids from earlier creates). */
export type Pools = Record<string, () => (string | number)[]>;

export interface GenContext {
  doc: Json;
  pools: Pools;
  /** Largest string a generator builds where the schema sets no maximum. */
  maxText?: number;
}

const countries = ['NL', 'US', 'DE', 'FR', 'GB', 'JP'];

function types(schema: Schema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type;
  return [];
}

/** A generator of values the schema accepts (pattern-bound strings through fc.stringMatching). */
export function valid(ctx: GenContext, schemaIn: Schema, name?: string): fc.Arbitrary<Json> {
  const schema = dereference(ctx.doc, schemaIn);
  const pool = name ? ctx.pools[name] : undefined;
  const own = validBySchema(ctx, schema);
  if (!pool) return own;
  const real = fc.nat().chain((i) => {
    const values = pool();
    return values.length ? fc.constant(values[i % values.length]) : own;
  });
  return fc.oneof({ arbitrary: real, weight: 4 }, { arbitrary: own, weight: 1 });
}

function validBySchema(ctx: GenContext, schema: Schema): fc.Arbitrary<Json> {
  const branches: Schema[] | undefined = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map((b) => valid(ctx, b)));
  if (Array.isArray(schema.allOf))
    return valid(ctx, Object.assign({}, ...schema.allOf.map((s: Schema) => dereference(ctx.doc, s))));
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const kinds = types(schema);
  if (kinds.length > 1) return fc.oneof(...kinds.map((type) => valid(ctx, { ...schema, type })));
  switch (kinds[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = schema.minimum ?? -1000;
      const max = Math.min(schema.maximum ?? min + 100_000, Number.MAX_SAFE_INTEGER);
      return fc.oneof(
        fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) }),
        fc.constantFrom(min, max),
      );
    }
    case 'number': {
      const min = schema.minimum ?? -1e6;
      const max = schema.maximum ?? 1e6;
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'string':
      return validString(ctx, schema);
    case 'array':
      return fc.array(valid(ctx, schema.items ?? {}), { maxLength: 3 });
    case 'object':
      return validObject(ctx, schema);
    default:
      return fc.constant('x');
  }
}

function validString(ctx: GenContext, schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? ctx.maxText ?? 64;
  if (schema.format === 'country-code') return fc.constantFrom(...countries);
  if (schema.pattern) {
    return fc
      .stringMatching(new RegExp(schema.pattern, 'u'), { size: 'small' })
      .filter((s) => s.length >= minLength && s.length <= maxLength);
  }
  return fc.string({ minLength, maxLength: Math.min(maxLength, Math.max(minLength, 40)), unit: 'grapheme-ascii' });
}

function validObject(ctx: GenContext, schema: Schema): fc.Arbitrary<Record<string, Json>> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const record: Record<string, fc.Arbitrary<Json>> = {};
  for (const [key, sub] of Object.entries(properties)) record[key] = valid(ctx, sub, key);
  const optional = Object.keys(properties).filter((key) => !required.has(key));
  return fc.record(record, { requiredKeys: [...required].filter((key) => key in properties) }).map((value) => {
    for (const key of optional) if (value[key] === undefined) delete value[key];
    return value;
  }) as fc.Arbitrary<Record<string, Json>>;
}

/** Characters neither database may be given (see src/http/input-domain.ts). */
export const forbiddenCharacter = fc.oneof(
  fc.constant('\u0000'),
  fc
    .integer({ min: 1, max: 0x1f })
    .filter((c) => c !== 9 && c !== 10 && c !== 13)
    .map((c) => String.fromCharCode(c)),
  fc.constant('\u007f'),
  fc.constantFrom('\ud800', '\udfff'),
);

/** Text with one forbidden character somewhere in it. */
export const textWithForbiddenCharacter = fc
  .tuple(
    fc.string({ maxLength: 8, unit: 'grapheme-ascii' }),
    forbiddenCharacter,
    fc.string({ maxLength: 8, unit: 'grapheme-ascii' }),
  )
  .map(([before, bad, after]) => `${before}${bad}${after}`);

/**
 * Values the schema refuses even under the server's liberal reading (numbers and booleans as
 * strings, numbers as text, null in an optional field as absent), or null when there are none.
 */
export function invalid(
  ctx: GenContext,
  schemaIn: Schema,
  options: { required: boolean; bodyLimit?: number; asText?: boolean },
): fc.Arbitrary<Json> | null {
  const schema = dereference(ctx.doc, schemaIn);
  const choices: fc.Arbitrary<Json>[] = [];
  if (options.asText) return invalidText(ctx, schema, options.bodyLimit ?? 2048);
  const accepts = acceptedKinds(ctx, schema);
  // A boolean is never a number, an id or a string.
  if (!accepts.has('boolean')) choices.push(fc.boolean());
  if (accepts.has('boolean') && !accepts.has('string') && !accepts.has('number'))
    choices.push(fc.integer({ min: 2, max: 99 }), fc.constantFrom('yes', 'maybe'));
  if (!accepts.has('object')) choices.push(fc.constant({ nested: 1 }));
  if (!accepts.has('array')) choices.push(fc.constant([1, 'two']));
  if (options.required && !accepts.has('null')) choices.push(fc.constant(null));
  if (accepts.has('string')) choices.push(textWithForbiddenCharacter);
  if ((accepts.has('number') || accepts.has('integer')) && !accepts.has('string'))
    choices.push(fc.constantFrom('abc', '1x', ''));
  const limits = numberLimits(ctx, schema);
  if (limits.min !== undefined) choices.push(fc.constant(limits.min - 1));
  if (limits.max !== undefined) choices.push(fc.constant(limits.max + 1));
  if (limits.integer && !accepts.has('number')) choices.push(fc.constantFrom(1.5, 2.25));
  const maxLength = stringMaxLength(ctx, schema);
  if (maxLength !== undefined) {
    const ceiling = Math.max(maxLength + 1, (options.bodyLimit ?? 256 * 1024) - 1024);
    // Just over the limit, and anything up to the body limit.
    choices.push(
      fc.oneof(fc.constant(maxLength + 1), fc.integer({ min: maxLength + 1, max: ceiling })).map((n) => 'a'.repeat(n)),
    );
  }
  return choices.length ? fc.oneof(...choices) : null;
}

/** Invalid values of a path or query parameter: text is all a URL carries. */
function invalidText(ctx: GenContext, schema: Schema, limit: number): fc.Arbitrary<Json> | null {
  const accepts = acceptedKinds(ctx, schema);
  const choices: fc.Arbitrary<Json>[] = [];
  if (accepts.has('string') || accepts.has('number')) choices.push(textWithForbiddenCharacter);
  if ((accepts.has('number') || accepts.has('integer')) && !accepts.has('string'))
    choices.push(fc.constantFrom('abc', '1x', 'true'));
  if (accepts.has('boolean') && !accepts.has('string')) choices.push(fc.constantFrom('yes', '2'));
  const limits = numberLimits(ctx, schema);
  if (limits.min !== undefined) choices.push(fc.constant(String(limits.min - 1)));
  if (limits.max !== undefined) choices.push(fc.constant(String(limits.max + 1)));
  if (limits.integer && !accepts.has('number')) choices.push(fc.constant('1.5'));
  const maxLength = stringMaxLength(ctx, schema);
  if (maxLength !== undefined)
    choices.push(fc.integer({ min: maxLength + 1, max: Math.max(maxLength + 1, limit) }).map((n) => 'a'.repeat(n)));
  return choices.length ? fc.oneof(...choices) : null;
}

/** What kinds of JSON values some branch of the schema takes ('any-string': a string without constraints). */
function acceptedKinds(ctx: GenContext, schemaIn: Schema, into = new Set<string>()): Set<string> {
  const schema = dereference(ctx.doc, schemaIn);
  const branches: Schema[] | undefined = schema.anyOf ?? schema.oneOf;
  if (branches) {
    for (const branch of branches) acceptedKinds(ctx, branch, into);
    return into;
  }
  if ('const' in schema) {
    into.add(schema.const === null ? 'null' : typeof schema.const);
    return into;
  }
  const kinds = types(schema);
  if (kinds.length === 0 && !schema.enum)
    for (const kind of ['string', 'number', 'boolean', 'object', 'array', 'null', 'any-string']) into.add(kind);
  for (const kind of kinds) {
    into.add(kind === 'integer' ? 'number' : kind);
    if (kind === 'integer') into.add('integer');
    if (kind === 'string' && !schema.pattern && !schema.format && !schema.enum && !schema.minLength)
      into.add('any-string');
  }
  if (Array.isArray(schema.enum)) for (const value of schema.enum) into.add(typeof value);
  return into;
}

/** Numeric bounds when every branch that takes numbers has them (so out of range is out for all). */
function numberLimits(ctx: GenContext, schemaIn: Schema): { min?: number; max?: number; integer: boolean } {
  const schema = dereference(ctx.doc, schemaIn);
  const branches: Schema[] = schema.anyOf ?? schema.oneOf ?? [schema];
  const numeric = branches
    .map((b) => dereference(ctx.doc, b))
    .filter((b) => types(b).some((t) => t === 'number' || t === 'integer'));
  if (numeric.length !== 1) return { integer: false };
  const only = numeric[0]!;
  // A numeric string branch (ids written as text) would take the out-of-range value as text.
  const textual = branches.some((b) => types(dereference(ctx.doc, b)).includes('string'));
  if (textual) return { integer: false };
  return { min: only.minimum, max: only.maximum, integer: types(only).includes('integer') };
}

function stringMaxLength(ctx: GenContext, schemaIn: Schema): number | undefined {
  const schema = dereference(ctx.doc, schemaIn);
  const branches: Schema[] = (schema.anyOf ?? schema.oneOf ?? [schema]).map((b: Schema) => dereference(ctx.doc, b));
  const strings = branches.filter((b) => types(b).includes('string'));
  if (strings.length === 0 || strings.some((b) => b.maxLength === undefined)) return undefined;
  // Numbers are taken as their text: a long run of digits might pass a numeric branch; 'a's never do.
  return Math.max(...strings.map((b) => b.maxLength as number));
}

// ---------------------------------------------------------------------------------------------
// Requests and the checks of their answers

export interface RequestCase {
  /** valid: the schemas accept it; the other kinds are invalid on purpose. */
  kind: 'valid' | 'field' | 'missing' | 'malformed' | 'content-type';
  /** What was made invalid (a field name), for the failure message. */
  what?: string;
  method: string;
  url: string;
  contentType?: string;
  body?: string;
}

export interface CaseOptions {
  /** Parameter and field names whose valid values come only from the pools (destructive operations). */
  poolOnly?: Set<string>;
  bodyLimit?: number;
  /** Only requests the schemas accept. */
  validOnly?: boolean;
}

function fillPath(path: string, values: Record<string, Json>): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(String(values[name])));
}

/**
 * Whether a value can stand as a path segment of a request: `.` and `..` cannot, spelled %2E or
 * not, since the client's URL parser resolves them away before sending (a test that sent
 * POST /admin/servers/%2E/stop reached POST /admin/servers/stop, and its 405, instead).
 */
function segment(value: Json): boolean {
  const text = String(value);
  return text !== '.' && text !== '..';
}

function encodeBody(op: Operation, body: Record<string, Json>, asJson: boolean): { contentType: string; body: string } {
  if (asJson || op.body?.contentType.includes('json'))
    return { contentType: 'application/json', body: JSON.stringify(body) };
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(body))
    if (value !== null && value !== undefined) form.set(key, String(value));
  return { contentType: op.body?.contentType ?? 'application/x-www-form-urlencoded', body: form.toString() };
}

/** Strings that survive a URL: no unpaired surrogates (they cannot be percent-encoded). */
function urlSafe(value: Json): boolean {
  return typeof value !== 'string' || value.isWellFormed();
}

/** A generator of requests for one operation: valid ones and every kind of invalid one. */
export function requestCases(ctx: GenContext, op: Operation, options: CaseOptions = {}): fc.Arbitrary<RequestCase> {
  const poolOnly = options.poolOnly ?? new Set<string>();
  const field = (schema: Schema, name: string) => {
    const pool = ctx.pools[name];
    if (pool && poolOnly.has(name))
      return fc.nat().map((i) => {
        const values = pool();
        return values.length ? values[i % values.length] : 'none';
      });
    return valid(ctx, schema, name);
  };
  const params: Record<string, fc.Arbitrary<Json>> = {};
  for (const p of op.parameters)
    params[p.name] = p.in === 'path' ? field(p.schema, p.name).filter(segment) : field(p.schema, p.name);
  const paramRecord = fc.record(params, {
    requiredKeys: op.parameters.filter((p) => p.required).map((p) => p.name),
  });
  const bodySchema = op.body ? dereference(ctx.doc, op.body.schema) : null;
  const bodyProps: Record<string, Schema> = bodySchema?.properties ?? {};
  const bodyRequired = new Set<string>(bodySchema?.required ?? []);
  const bodyRecord: fc.Arbitrary<Record<string, Json>> = bodySchema
    ? (fc
        .record(Object.fromEntries(Object.entries(bodyProps).map(([key, schema]) => [key, field(schema, key)])), {
          requiredKeys: [...bodyRequired].filter((key) => key in bodyProps),
        })
        .map((value) => {
          for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
          return value;
        }) as fc.Arbitrary<Record<string, Json>>)
    : fc.constant({});

  const build = (
    kind: RequestCase['kind'],
    values: Record<string, Json>,
    body: Record<string, Json>,
    extra: Partial<RequestCase> = {},
  ): RequestCase => {
    const query = new URLSearchParams();
    for (const p of op.parameters)
      if (p.in === 'query' && values[p.name] !== undefined && values[p.name] !== null)
        query.set(p.name, String(values[p.name]));
    const url = fillPath(op.path, values) + (query.size ? `?${query}` : '');
    const encoded = op.body ? encodeBody(op, body, kind !== 'valid') : null;
    return { kind, method: op.method, url, ...(encoded ?? {}), ...extra };
  };

  const validCase = fc.tuple(paramRecord, bodyRecord).map(([values, body]) => build('valid', values, body));
  if (options.validOnly) return validCase;
  const invalidCases: fc.Arbitrary<RequestCase>[] = [];
  for (const p of op.parameters) {
    const bad = invalid(ctx, p.schema, { required: p.required, bodyLimit: 2048, asText: true });
    if (
      !bad ||
      (p.in === 'path' &&
        types(dereference(ctx.doc, p.schema)).includes('string') &&
        !p.schema.maxLength &&
        !p.schema.pattern)
    )
      continue;
    invalidCases.push(
      fc
        .tuple(
          paramRecord,
          bodyRecord,
          bad.filter(urlSafe).filter((v) => typeof v !== 'object' || v === null),
        )
        .filter(([, , value]) => p.in === 'query' || (value !== null && String(value) !== '' && segment(value)))
        .map(([values, body, value]) => build('field', { ...values, [p.name]: value }, body, { what: p.name })),
    );
  }
  for (const [key, schema] of Object.entries(bodyProps)) {
    const bad = invalid(ctx, schema, { required: bodyRequired.has(key), bodyLimit: options.bodyLimit });
    if (!bad) continue;
    invalidCases.push(
      fc
        .tuple(paramRecord, bodyRecord, bad)
        .map(([values, body, value]) => build('field', values, { ...body, [key]: value }, { what: key })),
    );
  }
  const required = [...bodyRequired].filter((key) => key in bodyProps);
  if (required.length)
    invalidCases.push(
      fc.tuple(paramRecord, bodyRecord, fc.constantFrom(...required)).map(([values, body, key]) => {
        const { [key]: _dropped, ...rest } = body;
        return build('missing', values, rest, { what: key });
      }),
    );
  if (op.body) {
    invalidCases.push(
      fc
        .tuple(paramRecord, fc.constantFrom('{"a":', '[1,2', '{"a" 1}', '\u0000', '{"x":"\\u12"}'))
        .map(([values, raw]) => build('malformed', values, {}, { contentType: 'application/json', body: raw })),
      fc
        .tuple(paramRecord, bodyRecord, fc.constantFrom('text/plain', 'application/xml', 'image/png'))
        .map(([values, body, type]) =>
          build('content-type', values, {}, { contentType: type, body: JSON.stringify(body) }),
        ),
    );
  }
  if (invalidCases.length === 0) return validCase;
  return fc.oneof({ arbitrary: validCase, weight: 2 }, { arbitrary: fc.oneof(...invalidCases), weight: 3 });
}

export interface Answer {
  status: number;
  body: Json;
  text: string;
}

/**
 * How long a generated request may wait for its whole answer: a hang guard, not a speed check.
 * The heaviest answer the document allows, a ten-year clock advance that issues every month's
 * documents of every account, took over 15 s (the guard before) beside a full CI run on two cores.
 */
export const ANSWER_DEADLINE_MS = 120_000;

export async function send(base: string, c: RequestCase, token: string | null): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (c.contentType) headers['content-type'] = c.contentType;
  // Bounded: an answer that never ends fails the case instead of hanging the run.
  const response = await fetch(base + c.url, {
    method: c.method,
    headers,
    body: c.body,
    signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
  });
  const text = await response.text();
  let body: Json = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text };
}

/** What is wrong with an answer to a request of the operation (null: nothing). */
export function problemWith(
  op: Operation,
  c: RequestCase,
  answer: Answer,
  validator: (op: Operation, status: number) => ValidateFunction | null,
): string | null {
  const text = answer.text.length > 300 ? `${answer.text.slice(0, 300)}…` : answer.text;
  if (answer.status >= 500) return `answered ${answer.status}: ${text}`;
  if (!op.responses.has(answer.status))
    return `answered ${answer.status}, which the document does not list (${[...op.responses.keys()].join(', ')}): ${text}`;
  if (c.kind !== 'valid' && answer.status < 400)
    return `accepted an invalid request (${c.kind}${c.what ? ` ${c.what}` : ''}) with ${answer.status}`;
  const validate = validator(op, answer.status);
  if (validate) {
    if (answer.body === undefined)
      return `answered ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 200)}`;
    if (!validate(answer.body))
      return `the ${answer.status} body does not match the documented schema: ${JSON.stringify(validate.errors?.slice(0, 3))} in ${text}`;
  }
  return null;
}

/** How a failing case is shown (fast-check prints it as the counterexample). */
export function describeCase(c: RequestCase): string {
  const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}… (${text.length} characters)` : text);
  const body = c.body === undefined ? undefined : clip(c.body);
  return `${c.kind}${c.what ? `(${c.what})` : ''} ${c.method} ${clip(c.url)}${c.contentType ? ` [${c.contentType}]` : ''}${body !== undefined ? ` ${body}` : ''}`;
}
