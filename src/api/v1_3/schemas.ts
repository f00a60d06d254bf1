// TypeBox pieces shared by the v1.3 routes: they validate input, type handlers and feed OpenAPI.

import { Type, type TSchema } from 'typebox';

/**
 * An id or a uuid: integer, numeric string, or 36-character uuid. An id no row can have (above
 * 2^31 − 1) is valid input that names nothing: 404, like a missing one (see `parseRef`).
 */
export const IdOrUuid = Type.Union(
  [
    Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
    Type.String({
      maxLength: 36,
      pattern: '^(\\d{1,15}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$',
    }),
  ],
  {
    $id: 'IdOrUuid',
    description: 'integer id or 36-character uuid',
    examples: [101, '5e1c8f0a-1d3b-4b8e-9a51-0c2d7e1f0101'],
  },
);

/** An id or uuid in a path (`/server/info/{server_id}`): text, checked by the service (404 when nothing matches). */
export const PathRef = Type.String({
  maxLength: 64,
  description: 'integer id or 36-character uuid',
  examples: ['101', '5e1c8f0a-1d3b-4b8e-9a51-0c2d7e1f0101'],
});

export const Timestamp = Type.String({ description: 'UTC, YYYY-MM-DDTHH:MM:SSZ', examples: ['2026-11-22T12:00:00Z'] });
/** A paged list's `meta`: how many items there are in all, beyond the page. */
export const PageMeta = Type.Object({ total: Type.Integer() });
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

/** The Account object of the spec (account/info), also what the operator API shows. */
export const Account = Type.Object(
  {
    id: Type.Integer(),
    uuid: Type.String({ description: 'public to its owner; activation uses a separate uuid sent by mail' }),
    email: Type.String(),
    profile: Type.Object({
      firstname: Type.String(),
      lastname: Type.String(),
      country: Type.String(),
      dark_mode: Type.Boolean(),
    }),
    account_type: Type.String({ enum: ['personal', 'business', 'reseller'] }),
    balance: Type.Number({ description: 'USD' }),
    activated: Type.Boolean(),
    smtp: Type.Boolean(),
    referrals: Type.Object({ count: Type.Integer(), amount: Type.Number() }),
    servers: Type.Object({ limit: Type.Integer(), running: Type.Integer() }),
    registerdate: Timestamp,
    lastlogin: Type.Union([Timestamp, Type.Null()], {
      description: 'last successful login (or the registration); null never happens in practice',
    }),
    billing: Type.Object({
      secondsdue: Type.Union([Type.Integer(), Type.Null()], {
        description: 'null while nothing is billed: the balance never runs out',
      }),
      duedate: Type.Union([Timestamp, Type.Null()]),
      usage: Type.Number({ description: 'current hourly burn in USD' }),
    }),
    permissions: Type.Record(Type.String(), Type.Boolean(), {
      description:
        'servers, snapshots, backups, floating_ips, vpcs, ssh_keys, tokens: true unless the operator turned it off',
    }),
    blocked_ports: Type.Object({ TCP: Type.Array(Type.Integer()), UDP: Type.Array(Type.Integer()) }),
    activity: Type.Array(
      Type.Object({
        ip_address: Type.String(),
        timestamp: Timestamp,
        status: Type.String({ examples: ['login success', 'login failed', 'register rejected'] }),
      }),
      { description: 'the 50 latest register and login attempts, newest first' },
    ),
  },
  { $id: 'Account', description: 'an account (spec: Account object)' },
);

export const SuccessObject = Type.Object(
  {
    success: Type.Object({ response: Type.String({ examples: ['202 Accepted'] }), reason: Type.String() }),
  },
  { $id: 'SuccessObject', description: 'success object' },
);

export const ErrorObject = Type.Object(
  {
    errors: Type.Object({
      response: Type.String({ description: 'the status and its reason phrase, e.g. `404 Not Found`' }),
      reason: Type.String(),
    }),
  },
  { $id: 'ErrorObject', description: 'error object' },
);

export const FieldErrors = Type.Object(
  {
    errors: Type.Array(Type.Object({ reason: Type.String(), field: Type.String() })),
  },
  { $id: 'FieldErrors', description: 'one entry per bad field' },
);

/** Response map with the spec's error shapes added for the statuses a route can answer. */
export function responses<T extends Record<number, TSchema>>(ok: T, errors: number[] = []) {
  const map: Record<number, TSchema> = { ...ok };
  for (const status of errors) map[status] = status === 400 ? FieldErrors : ErrorObject;
  return map as T;
}

/** Standard error statuses of an authenticated operation. */
export const authErrors = [400, 401, 403, 429];
