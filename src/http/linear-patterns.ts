// Every schema `pattern` runs in linear time, and only on a string whose length the schema
// allows. V8's backtracking engine takes time growing with the square (or worse) of the input
// for patterns such as the e-mail one, and Ajv with `allErrors` runs `pattern` even after
// `maxLength` has failed: one long value stalled every other request. Here the patterns run on
// RE2 (re2js: a DFA/NFA with no backtracking), and a string over its `maxLength` is reported by
// `maxLength` alone. Note: RE2's `\s` and `\S` are ASCII white space, where JavaScript's include
// Unicode spaces.

import { RE2JS } from 're2js';

export interface LinearRegExp {
  test(value: string): boolean;
  toString(): string;
}

const compiled = new Map<string, LinearRegExp>();

/**
 * A pattern on the linear-time engine. The shape of Ajv's `code.regExp` option: `toString` is
 * the key under which Ajv shares one compiled pattern between schemas, so it must be the source.
 */
export function linearRegExp(pattern: string): LinearRegExp {
  let regExp = compiled.get(pattern);
  if (!regExp) {
    const re2 = RE2JS.compile(pattern);
    regExp = { test: (value) => re2.test(value), toString: () => pattern };
    compiled.set(pattern, regExp);
  }
  return regExp;
}

/** Ajv's `code.regExp` option (used by `patternProperties`; `pattern` is replaced below). */
export const linearRegExpEngine = Object.assign((pattern: string) => linearRegExp(pattern), { code: 'linearRegExp' });

/** Code points of `value`, as Ajv's maxLength counts them; stops counting past `limit`. */
function codePointsUpTo(value: string, limit: number): number {
  if (value.length <= limit) return value.length;
  let count = 0;
  for (let i = 0; i < value.length && count <= limit; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

interface PatternError {
  keyword: string;
  message: string;
  params: Record<string, unknown>;
}

interface AjvWithKeywords {
  removeKeyword(keyword: string): unknown;
  addKeyword(definition: {
    keyword: string;
    type: string;
    schemaType: string;
    errors: boolean;
    compile: (
      schema: string,
      parentSchema: { maxLength?: number },
    ) => ((data: string) => boolean) & { errors?: PatternError[] };
  }): unknown;
}

/** Fastify `ajv.plugins` entry: replaces Ajv's `pattern` keyword by the linear, length-first one. */
export function linearPatterns<T>(instance: T): T {
  const ajv = instance as unknown as AjvWithKeywords;
  ajv.removeKeyword('pattern');
  ajv.addKeyword({
    keyword: 'pattern',
    type: 'string',
    schemaType: 'string',
    errors: true,
    compile(pattern, parentSchema) {
      const regExp = linearRegExp(pattern);
      const maxLength = parentSchema.maxLength ?? Number.POSITIVE_INFINITY;
      const validate = (data: string): boolean => {
        // Too long: maxLength reports it; the pattern is not run on it.
        if (codePointsUpTo(data, maxLength) > maxLength || regExp.test(data)) return true;
        validate.errors = [{ keyword: 'pattern', message: `must match pattern "${pattern}"`, params: { pattern } }];
        return false;
      };
      validate.errors = undefined as PatternError[] | undefined;
      return validate;
    },
  });
  return instance;
}
