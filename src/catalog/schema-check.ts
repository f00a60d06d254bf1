// Checks a parsed catalog file against its TypeBox schema (catalog.types.ts) and reports what
// TypeBox's own checker would: the same errors, in the same order, with the same messages.
// Only the keywords the catalog's schema uses are known; any other stops the check, so the
// schema cannot gain one that goes unchecked. Why not TypeBox's checker: `typebox/schema`
// adds some 160 modules to every start for one check of one small file (catalog.test.ts
// compares the two on generated catalogs).

export interface SchemaError {
  keyword: string;
  /** JSON pointer of the value, `/regions/2/city`; empty for the root. */
  instancePath: string;
  message: string;
  params: Record<string, unknown>;
}

type Schema = Record<string, unknown>;

/** TypeBox keeps the first 8 errors of a check (its `maxErrors` setting), and so do we. */
const maxErrors = 8;
function add(errors: SchemaError[], error: SchemaError): void {
  if (errors.length < maxErrors) errors.push(error);
}

/** Keywords that describe and do not constrain. */
const annotations = new Set(['description', 'title', '$id', 'default', 'examples']);
const keywords = new Set([
  'type',
  'required',
  'additionalProperties',
  'properties',
  'items',
  'minItems',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'const',
  'anyOf',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function hasType(type: string, value: unknown): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return Number.isFinite(value);
    case 'null':
      return value === null;
    case 'string':
      return typeof value === 'string';
    default:
      throw new Error(`catalog schema: unsupported type ${type}`);
  }
}

/** A JSON pointer fragment: `~` and `/` escaped. */
const fragment = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
/** String lengths count code points, as TypeBox does. */
const codePoints = (value: string) => [...value].length;

/** Appends to `errors` every error of `value` against `schema`; answers whether it is valid. */
function check(schema: Schema, value: unknown, path: string, errors: SchemaError[]): boolean {
  for (const key of Object.keys(schema))
    if (!keywords.has(key) && !annotations.has(key)) throw new Error(`catalog schema: unsupported keyword ${key}`);
  let valid = true;
  const fail = (keyword: string, message: string, params: Record<string, unknown> = {}) => {
    add(errors, { keyword, instancePath: path, message, params });
    valid = false;
  };
  if (typeof schema.type === 'string' && !hasType(schema.type, value))
    fail('type', `must be ${schema.type}`, { type: schema.type });
  if (isObject(value)) {
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    if (Array.isArray(schema.required)) {
      const missing = (schema.required as string[]).filter((key) => !(key in value));
      if (missing.length)
        fail('required', `must have required properties ${missing.join(', ')}`, { requiredProperties: missing });
    }
    if (schema.additionalProperties === false) {
      const extra = Object.getOwnPropertyNames(value).filter((key) => !Object.hasOwn(properties, key));
      // Each unknown key is also an error of its own: the schema `false` its value is checked against.
      for (const key of extra)
        add(errors, {
          keyword: 'boolean',
          instancePath: `${path}/${fragment(key)}`,
          message: 'schema is false',
          params: {},
        });
      if (extra.length)
        fail('additionalProperties', 'must not have additional properties', { additionalProperties: extra });
    }
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    for (const [key, subschema] of Object.entries(properties)) {
      // An absent key is the `required` keyword's; an optional one may also be undefined.
      if (!(key in value) || (!required.includes(key) && value[key] === undefined)) continue;
      if (!check(subschema, value[key], `${path}/${fragment(key)}`, errors)) valid = false;
    }
  }
  if (Array.isArray(value)) {
    if (schema.items)
      value.forEach((item, index) => {
        if (!check(schema.items as Schema, item, `${path}/${index}`, errors)) valid = false;
      });
    if (typeof schema.minItems === 'number' && value.length < schema.minItems)
      fail('minItems', `must not have fewer than ${schema.minItems} items`, { limit: schema.minItems });
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && codePoints(value) < schema.minLength)
      fail('minLength', `must not have fewer than ${schema.minLength} characters`, { limit: schema.minLength });
    if (typeof schema.maxLength === 'number' && codePoints(value) > schema.maxLength)
      fail('maxLength', `must not have more than ${schema.maxLength} characters`, { limit: schema.maxLength });
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value))
      fail('pattern', `must match pattern "${schema.pattern}"`, { pattern: schema.pattern });
  }
  if (Number.isFinite(value)) {
    if (typeof schema.minimum === 'number' && !((value as number) >= schema.minimum))
      fail('minimum', `must be >= ${schema.minimum}`, { comparison: '>=', limit: schema.minimum });
    if (typeof schema.maximum === 'number' && !((value as number) <= schema.maximum))
      fail('maximum', `must be <= ${schema.maximum}`, { comparison: '<=', limit: schema.maximum });
  }
  if ('const' in schema && value !== schema.const)
    fail('const', 'must be equal to constant', { allowedValue: schema.const });
  if (Array.isArray(schema.anyOf)) {
    const failed: SchemaError[][] = [];
    for (const branch of schema.anyOf as Schema[]) {
      const branchErrors: SchemaError[] = [];
      if (check(branch, value, path, branchErrors)) {
        failed.length = 0;
        break;
      }
      failed.push(branchErrors);
    }
    if (failed.length === (schema.anyOf as Schema[]).length) {
      for (const error of failed.flat()) add(errors, error);
      fail('anyOf', 'must match a schema in anyOf');
    }
  }
  return valid;
}

/** Every error of `value` against `schema`, in TypeBox's order; empty when it is valid. */
export function schemaErrors(schema: object, value: unknown): SchemaError[] {
  const errors: SchemaError[] = [];
  check(schema as Schema, value, '', errors);
  return errors;
}
