// The input domain every route shares, applied where every request passes: the validator
// compiler (see lazy-compilers.ts). Ajv's own coercion is off; this file does the liberal part
// on purpose, driven by the route's schema, before Ajv validates strictly:
//
// - a number or boolean written as a string is accepted (`"12"`, `"true"`); a finite number where
//   text is expected is taken as its decimal text only where the caller asks for it (the legacy
//   API's liberal reading): the JSON bodies of /v1.3 and /admin take strings as strings, and a
//   field that takes an id or a uuid, or a number or a numeric string, is a union that takes both;
// - a boolean is never a number, an id, a string or an amount; null is never 0, "" or false;
// - JSON null in an optional field means the field is absent, unless the field's schema itself
//   allows null (those fields document null as "unset");
// - text the databases cannot both store is refused with a 400 naming the field: NUL and the
//   other control characters (U+0001–U+001F but tab, line feed and carriage return; U+007F) and
//   unpaired UTF-16 surrogates, anywhere in a body, query or path parameter.

import { Ajv } from 'ajv';

type Schema = Record<string, unknown>;
export type ResolveRef = (ref: string) => Schema | undefined;

export interface InputError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

// Spaces, tabs and line breaks around a number are taken; not JavaScript's wider \s (vertical tab, form feed,
// NEL, no-break and other Unicode spaces), which Number() would also trim: those are refused like any other text.
const numeric = /^[ \t\n\r]*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?[ \t\n\r]*$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it finds
const forbidden = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

export const controlCharacterReason =
  'must not contain control characters (U+0000 to U+001F but tab, line feed and carriage return, or U+007F) or unpaired surrogates';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typesOf(schema: Schema): string[] | null {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type as string[];
  return null;
}

const splitTypes = new WeakMap<Schema, Schema[]>();

function branchesOf(schema: Schema): Schema[] | null {
  const list = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(list)) return list;
  const types = typesOf(schema);
  if (!types || types.length < 2) return null;
  let split = splitTypes.get(schema);
  if (!split) {
    split = types.map((type) => ({ ...schema, type }));
    splitTypes.set(schema, split);
  }
  return split;
}

/** Whether a value already has a type the schema names (no conversion needed). */
function hasType(schema: Schema, value: unknown, resolve: ResolveRef): boolean {
  const target = deref(schema, resolve);
  const branches = branchesOf(target);
  if (branches) return branches.some((branch) => hasType(branch, value, resolve));
  const types = typesOf(target);
  if (!types) return 'const' in target ? target.const === value : false;
  return types.some((type) => {
    switch (type) {
      case 'string':
        return typeof value === 'string';
      case 'integer':
        return typeof value === 'number' && Number.isInteger(value);
      case 'number':
        return typeof value === 'number';
      case 'boolean':
        return typeof value === 'boolean';
      case 'null':
        return value === null;
      case 'object':
        return isObject(value);
      case 'array':
        return Array.isArray(value);
      default:
        return false;
    }
  });
}

const unchanged = Symbol('unchanged');

/** How liberal a scope's reading is. */
export interface InputOptions {
  /** A finite number where text is expected is taken as its decimal text (the legacy API). */
  numbersAsText: boolean;
}

/** The liberal conversions of a scalar to a single-typed schema, or `unchanged`. */
function convertScalar(schema: Schema, value: unknown, options: InputOptions): unknown {
  const types = typesOf(schema);
  if (types?.length !== 1) return unchanged;
  const type = types[0];
  if ((type === 'integer' || type === 'number') && typeof value === 'string' && numeric.test(value)) {
    const number = Number(value);
    return Number.isFinite(number) ? number : unchanged;
  }
  if (type === 'boolean' && typeof value === 'string') {
    const text = value.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '').toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
  }
  if (options.numbersAsText && type === 'string' && typeof value === 'number' && Number.isFinite(value))
    return String(value);
  return unchanged;
}

function deref(schema: Schema, resolve: ResolveRef): Schema {
  let current = schema;
  for (let depth = 0; depth < 8 && typeof current.$ref === 'string'; depth++) {
    const target = resolve(current.$ref);
    if (!target) break;
    current = target;
  }
  return current;
}

// Which branch of a union a value belongs to is decided by validating it against each branch
// in the schema's order (as Ajv's own coercion did): "12" is the integer 12 for `integer | uuid
// string` and for `number | string`, and stays the text "12" for `string | number`.
const branchAjv = new Ajv({ strict: false, allErrors: false, validateFormats: false });
const branchValidators = new WeakMap<Schema, (value: unknown) => boolean>();

function fitsFully(schemaIn: Schema, value: unknown, resolve: ResolveRef): boolean {
  const schema = deref(schemaIn, resolve);
  let validate = branchValidators.get(schema);
  if (!validate) {
    try {
      const compiled = branchAjv.compile(withoutIds(schema) as Schema);
      validate = (data) => compiled(data) === true;
    } catch {
      validate = (data) => hasType(schema, data, resolve);
    }
    branchValidators.set(schema, validate);
  }
  return validate(value);
}

/** A copy without `$id`s: they only name shapes for the document, and Ajv refuses one twice. */
function withoutIds(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutIds);
  if (!isObject(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) if (key !== '$id') copy[key] = withoutIds(value);
  return copy;
}

function allowsNull(schema: Schema, resolve: ResolveRef): boolean {
  return hasType(schema, null, resolve);
}

/** Applies the liberal conversions the schema allows; answers the (possibly new) value. */
export function normalize(schemaIn: Schema, value: unknown, resolve: ResolveRef, options: InputOptions): unknown {
  const schema = deref(schemaIn, resolve);
  const branches = branchesOf(schema);
  if (branches) {
    // In the schema's order, as Ajv's coercion did: the first branch the value fits, as it is or converted.
    for (const branch of branches) {
      if (fitsFully(branch, value, resolve)) return normalize(branch, value, resolve, options);
      const converted = convertScalar(deref(branch, resolve), value, options);
      if (converted !== unchanged && fitsFully(branch, converted, resolve)) return converted;
    }
    const typed = branches.find((branch) => hasType(branch, value, resolve));
    return typed ? normalize(typed, value, resolve, options) : value;
  }
  if (Array.isArray(schema.allOf)) {
    let current = value;
    for (const part of schema.allOf as Schema[]) current = normalize(part, current, resolve, options);
    return current;
  }
  if (isObject(value)) {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const required = new Set((schema.required ?? []) as string[]);
    const patterns = Object.entries((schema.patternProperties ?? {}) as Record<string, Schema>).map(
      ([pattern, sub]) => [new RegExp(pattern, 'u'), sub] as const,
    );
    const additional = isObject(schema.additionalProperties) ? (schema.additionalProperties as Schema) : undefined;
    for (const key of Object.keys(value)) {
      const sub =
        properties[key] ??
        patterns.find(([pattern]) => pattern.test(key))?.[1] ??
        (key in properties ? undefined : additional);
      if (!sub) continue;
      if (value[key] === null && !required.has(key) && !allowsNull(sub, resolve)) {
        delete value[key];
        continue;
      }
      value[key] = normalize(sub, value[key], resolve, options);
    }
    return value;
  }
  if (Array.isArray(value)) {
    const items = isObject(schema.items) ? (schema.items as Schema) : undefined;
    if (items) for (let i = 0; i < value.length; i++) value[i] = normalize(items, value[i], resolve, options);
    return value;
  }
  const converted = convertScalar(schema, value, options);
  return converted === unchanged ? value : converted;
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Every string (and object key) the databases could not both store, as validation errors. */
export function textErrors(value: unknown, path = '', errors: InputError[] = []): InputError[] {
  if (typeof value === 'string') {
    if (forbidden.test(value) || !value.isWellFormed())
      errors.push({ keyword: 'text', instancePath: path, params: {}, message: controlCharacterReason });
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) textErrors(value[i], `${path}/${i}`, errors);
  } else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const at = `${path}/${escapePointer(key)}`;
      if (forbidden.test(key) || !key.isWellFormed())
        errors.push({ keyword: 'text', instancePath: at, params: {}, message: controlCharacterReason });
      else textErrors(item, at, errors);
    }
  }
  return errors;
}

/** A resolver over the shared schemas (by `$id`) and local `#/…` pointers of one root schema. */
export function refResolver(root: Schema, shared: Record<string, Schema>): ResolveRef {
  const byId = new Map<string, Schema>();
  for (const [key, schema] of Object.entries(shared ?? {})) {
    if (!isObject(schema)) continue;
    byId.set(key, schema);
    if (typeof schema.$id === 'string') byId.set(schema.$id, schema);
  }
  return (ref) => {
    if (ref.startsWith('#/')) {
      let node: unknown = root;
      for (const part of ref.slice(2).split('/')) {
        if (!isObject(node)) return undefined;
        node = node[part.replaceAll('~1', '/').replaceAll('~0', '~')];
      }
      return isObject(node) ? node : undefined;
    }
    const [id, pointer] = ref.split('#') as [string, string | undefined];
    const base = byId.get(id) ?? byId.get(ref);
    if (!base || !pointer) return base;
    let node: unknown = base;
    for (const part of pointer.replace(/^\//, '').split('/')) {
      if (!isObject(node)) return undefined;
      node = node[part];
    }
    return isObject(node) ? node : undefined;
  };
}
