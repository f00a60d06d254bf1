// TypeBox pieces shared by the v1.3 routes: they validate input, type handlers and feed OpenAPI.

import { Type, type TSchema } from 'typebox';

/** An id or a uuid: integer, numeric string, or 36-character uuid. */
export const IdOrUuid = Type.Union([
  Type.Integer({ minimum: 1 }),
  Type.String({ pattern: '^(\\d{1,15}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$' }),
], { description: 'integer id or 36-character uuid' });

export const Timestamp = Type.String({ description: 'UTC, YYYY-MM-DDTHH:MM:SSZ', examples: ['2026-11-22T12:00:00Z'] });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const SuccessObject = Type.Object({
  success: Type.Object({ response: Type.String({ examples: ['202 Accepted'] }), reason: Type.String() }),
}, { description: 'success object' });

export const ErrorObject = Type.Object({
  errors: Type.Object({ response: Type.String({ examples: ['404 Not Found'] }), reason: Type.String() }),
}, { description: 'error object' });

export const FieldErrors = Type.Object({
  errors: Type.Array(Type.Object({ reason: Type.String(), field: Type.String() })),
}, { description: 'one entry per bad field' });

/** Response map with the spec's error shapes added for the statuses a route can answer. */
export function responses<T extends Record<number, TSchema>>(ok: T, errors: number[] = []) {
  const map: Record<number, TSchema> = { ...ok };
  for (const status of errors) map[status] = status === 400 ? FieldErrors : ErrorObject;
  return map as T;
}

/** Standard error statuses of an authenticated operation. */
export const authErrors = [400, 401, 403, 429];
