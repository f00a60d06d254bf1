// The OpenAPI document as a product (docs/architecture.md, "OpenAPI"): what every operation of
// an API scope can answer beyond what its route declares (401, 405, 429, 503…), who may call it
// (`security` from the route's declared access), named component schemas (TypeBox `$id`), real
// response descriptions and error examples that carry the right status line.

import type { RouteOptions } from 'fastify';
import type { ApiFormat } from './error-mapping.ts';
import { statusLine } from './error-mapping.ts';

/** What a status means on any operation: the response descriptions of the document. */
export const statusMeaning: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted: the change is under way; the resource shows its progress',
  204: 'Done: nothing to return',
  400: 'Bad Request: a field, the body, the query or the path is invalid (each bad field is named)',
  401: 'Unauthorized: no token, or one that is unknown, expired or removed',
  402: "Payment Required: the account's balance cannot pay for it",
  403: 'Forbidden: the account is blocked, not activated, or lacks the permission',
  404: "Not Found: no such resource on this account (another account's ids answer the same)",
  405: 'Method Not Allowed: the path exists but not with this method (`Allow` lists the methods it serves)',
  409: "Conflict: the resource's state or a limit does not allow it now",
  429: 'Too Many Requests: a rate limit ran out (`Retry-After` says when to try again)',
  501: 'Not Implemented: no such function',
  503: 'Service Unavailable: storage is unreachable or the server is shutting down; retry later',
};

/** The reasons the server really gives, for the error examples (404 names the resource of the operation's tag). */
const typicalReason: Record<number, string> = {
  401: 'authentication required: send a valid token as Authorization: Bearer <token>',
  402: 'not enough funds to create the resource: it needs 0.008219 USD up front and a balance above zero; the balance is 0.00 USD',
  403: 'the account lacks permission for this operation',
  405: 'wrong method DELETE: use GET',
  409: "the server's image is no longer offered; rebuild it with another image",
  429: 'rate limit exceeded, retry in a few moments',
  503: 'storage unavailable, retry in a few moments',
};
/** A 409 the operations of a tag really answer. */
const conflictOfTag: Record<string, string> = {
  'v1.3 floating IPs': 'floating IP 192.0.2.10 is attached to server 1: detach it first',
  'v1.3 VPCs': 'the account has used every private /24 of 10.0.0.0/8: remove a VPC first',
  'v1.3 SSH keys': 'this key (SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8) is already stored in the account',
  'v1.3 backups': 'automatic backups are already enabled on this server',
  operator: 'the clock is the system clock: start with CLOCK=virtual to move it',
};
const resourceOfTag: Record<string, string> = {
  'v1.3 account': 'account',
  'v1.3 tokens': 'token',
  'v1.3 servers': 'server',
  'v1.3 snapshots': 'snapshot',
  'v1.3 backups': 'server',
  'v1.3 floating IPs': 'floating IP',
  'v1.3 VPCs': 'VPC',
  'v1.3 SSH keys': 'SSH key',
  'v1.3 reverse DNS and options': 'server',
  'v1.3 listings': 'region',
  'v1 legacy': 'server',
  operator: 'account',
};

/**
 * Completes a route's schema for the document, from what the scope knows: its access gives
 * `security` (a public operation needs no token) and 401/403; any input or body can be refused with 400;
 * every path answers 405 to other methods and 503 when storage fails; budgets give 429. The
 * statuses a route declares itself stay as they are.
 */
export function documentRoute(route: RouteOptions, format: ApiFormat): void {
  const schema = route.schema as Record<string, unknown> | undefined;
  if (!schema || schema.hide) return;
  // An emulator tool is an operator route that may also answer 403 (emulator tools off).
  const access = route.config?.access === 'emulator' ? 'operator' : route.config?.access;
  if (access === 'public') schema.security ??= [];
  else if (access === 'operator') schema.security ??= [{ operator: [] }];
  const statuses = [405, 503];
  // Any input can be refused; so can any body (malformed JSON, wrong type, too large), schema or not.
  const carriesBody = [route.method].flat().some((method) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method));
  if (schema.body || schema.params || schema.querystring || carriesBody) statuses.push(400);
  if (access === 'account' || access === 'operator') statuses.push(401);
  if (access === 'operator') statuses.push(403);
  if (access === 'account' || route.config?.rateLimits?.length) statuses.push(429);
  const response = { ...(schema.response as Record<string, unknown> | undefined) };
  for (const status of statuses) response[status] ??= format.errorSchema(status);
  schema.response = response;
}

interface MediaType {
  schema?: { $ref?: string };
  example?: unknown;
}
interface Response {
  description?: string;
  content?: Record<string, MediaType>;
  headers?: Record<string, unknown>;
}

/** An example body of an error response, by the component its schema names. */
function errorExample(status: number, ref: string, tag: string | undefined): unknown {
  if (ref.endsWith('/FieldErrors')) return { errors: [{ field: 'label', reason: 'missing required field' }] };
  const reason =
    status === 404
      ? `${resourceOfTag[tag ?? ''] ?? 'resource'} not found, check the id or uuid`
      : status === 409 && conflictOfTag[tag ?? '']
        ? conflictOfTag[tag ?? '']
        : (typicalReason[status] ?? statusMeaning[status] ?? 'refused');
  if (ref.endsWith('/LegacyError'))
    return status === 400
      ? {
          message: 'SUBID: missing required field',
          response_type: 'error',
          response_code: 400,
          fields: [{ field: 'SUBID', reason: 'missing required field' }],
        }
      : { message: reason, response_type: 'error', response_code: status };
  if (ref.endsWith('/ErrorObject')) return { errors: { response: statusLine(status), reason } };
  return undefined;
}

const retryAfter = {
  'Retry-After': { description: 'seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

/**
 * The route schema as the document sees it: each subschema with an `$id` (a TypeBox schema
 * declared with `{ $id: 'Server' }`) is marked `x-component`, which `polishDocument` turns into
 * a reference to `#/components/schemas/Server`. (@fastify/swagger drops `$id`, and names only
 * some of them; the route's own schema, which Fastify validates with, is left untouched.)
 */
export function markComponents(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(markComponents);
  if (!isObject(schema)) return schema;
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id' && typeof value === 'string') copy['x-component'] = value;
    else copy[key] = markComponents(value);
  }
  return copy;
}

/** Replaces every `x-component` subschema with a reference, defining it once in components.schemas. */
function hoistComponents(node: unknown, components: Json): unknown {
  if (Array.isArray(node)) return node.map((item) => hoistComponents(item, components));
  if (!isObject(node)) return node;
  const copy: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'x-component') copy[key] = hoistComponents(value, components);
  }
  const name = node['x-component'];
  if (typeof name !== 'string') return copy;
  components[name] ??= copy;
  return { $ref: `#/components/schemas/${name}` };
}

/** The last pass over the built document: response descriptions, error examples, components. */
export function polishDocument(document: Json): Json {
  const paths = (document.paths ?? {}) as Record<
    string,
    Record<string, { tags?: string[]; responses?: Record<string, Response> }>
  >;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      for (const [code, response] of Object.entries(operation.responses ?? {})) {
        const status = Number(code);
        const media = response.content?.['application/json'] as (MediaType & { schema?: Json }) | undefined;
        const component = media?.schema?.['x-component'];
        // A description that merely repeats the component's ("error object") says nothing here.
        if (status >= 400 || !response.description || response.description === 'Default Response' || component) {
          const meaning = statusMeaning[status] ?? statusLine(status);
          // A success that is one named shape says which: "Created: the Server".
          response.description =
            status < 300 && typeof component === 'string' && !/Object$/.test(component)
              ? `${meaning.split(':')[0]}: the ${component}`
              : meaning;
        }
        if (media && typeof component === 'string' && status >= 400)
          media.example ??= errorExample(status, `/${component}`, operation.tags?.[0]);
        if (status === 429 || status === 503) response.headers = { ...response.headers, ...retryAfter };
        if (status === 405)
          response.headers = {
            ...response.headers,
            Allow: { description: 'the methods the path serves', schema: { type: 'string' } },
          };
      }
    }
  }
  const components = (document.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Json;
  const hoisted = hoistComponents({ ...document, components: { ...components, schemas: {} } }, schemas) as Json;
  const sorted = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  return { ...hoisted, components: { ...(hoisted.components as Json), schemas: sorted } };
}
