// The nesting of a JSON body, measured on its text before it is parsed: a body nested deeper
// than MAX_JSON_DEPTH is refused (400 naming `body`) without building it, so no part of the
// request's handling (parser, input domain, validator) walks a structure ten thousand deep.

import { Invalid } from '../platform/errors.ts';

const quote = 0x22;
const backslash = 0x5c;
const openBrace = 0x7b;
const openBracket = 0x5b;
const closeBrace = 0x7d;
const closeBracket = 0x5d;

/** Whether the JSON text opens more than `limit` objects and arrays inside each other (strings skipped). */
export function nestedDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === backslash) i++;
      else if (c === quote) inString = false;
    } else if (c === quote) inString = true;
    else if (c === openBrace || c === openBracket) {
      if (++depth > limit) return true;
    } else if (c === closeBrace || c === closeBracket) depth--;
  }
  return false;
}

/** The refusal of a body nested too deep. */
export function tooDeep(limit: number): Invalid {
  return new Invalid('body', `JSON nested deeper than ${limit} levels`);
}
