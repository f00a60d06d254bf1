// TypeBox pieces shared by the legacy v1 routes: the envelopes, ids as form fields, and the
// response map with the error envelope for each failure a route can answer.

import { Type, type TSchema } from 'typebox';
import { isoSeconds } from '../../platform/clock.ts';

export const tags = ['v1 legacy'];

/** What every POST route consumes: the spec's form fields (JSON is accepted too, undocumented). */
export const formBody = ['application/x-www-form-urlencoded'];

export const StatusEnvelope = Type.Object(
  {
    message: Type.String(),
    response_type: Type.Literal('success'),
    response_code: Type.Integer({ description: 'per operation (spec table); the HTTP status is 200' }),
  },
  { $id: 'LegacyStatus', description: 'status envelope' },
);

export const ErrorEnvelope = Type.Object(
  {
    message: Type.String({ description: 'the reason; for a 400 every bad field as `field: reason`' }),
    response_type: Type.Literal('error'),
    response_code: Type.Integer({ description: 'equal to the HTTP status' }),
    fields: Type.Optional(
      Type.Array(Type.Object({ field: Type.String(), reason: Type.String() }), {
        description: 'for a 400: one entry per bad form field',
      }),
    ),
  },
  { $id: 'LegacyError', description: 'error envelope (our decision: the spec shows none)' },
);

/** Response map with the error envelope added for the statuses a route can answer. */
export function responses<T extends Record<number, TSchema>>(ok: T, errors: number[] = []): T {
  const map: Record<number, TSchema> = { ...ok };
  for (const status of errors) map[status] = ErrorEnvelope;
  return map as T;
}

/** Failures of any authenticated operation. */
export const authErrors = [401, 429];
/** Failures of an authenticated change: bad fields, no permission, and what `authErrors` has. */
export const changeErrors = [400, 401, 403, 429];

/** An integer id (SUBID, SNAPSHOTID, DCID…); the v1.3 uuid of the same resource is accepted too. */
export const Id = Type.Union(
  [
    Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    Type.String({
      maxLength: 36,
      pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    }),
  ],
  { description: 'integer id (or the uuid v1.3 shows)' },
);

/** The legacy document's timestamp shape: "YYYY-MM-DDTHH:MM:SSz", with a lower-case z. */
export const Timestamp = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}z$',
  description: 'UTC, YYYY-MM-DDTHH:MM:SSz (lower-case z, as the legacy document shows)',
  examples: ['2026-11-22T12:00:00z'],
});

/** Clock ms in the legacy shape (…z). */
export function legacyTimestamp(ms: number): string {
  return `${isoSeconds(ms).slice(0, -1)}z`;
}
