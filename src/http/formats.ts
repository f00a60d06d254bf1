// String formats the route schemas may name (`Type.String({ format: 'country-code' })`),
// added to Fastify's Ajv so a bad value is reported with the other bad fields of a request.

import { isCountryCode } from '../accounts/countries.ts';

export const formats: Record<string, (value: string) => boolean> = {
  'country-code': isCountryCode,
};

interface AjvLike {
  addFormat(name: string, format: { type: 'string'; validate: (value: string) => boolean }): unknown;
}

/** Fastify `ajv.plugins` entry registering every format above. */
export function ajvFormats<T extends AjvLike>(ajv: T): T {
  for (const [name, validate] of Object.entries(formats)) ajv.addFormat(name, { type: 'string', validate });
  return ajv;
}
