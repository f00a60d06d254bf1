// @nubis/sdk: a typed client for the Nubis API. The types are generated from the server's
// OpenAPI document (src/generated/, by openapi-typescript); requests go through openapi-fetch,
// a thin wrapper over the platform's fetch, so the client runs unchanged in Node and browsers.
// The hand-written part is small: the client factory, typed errors, waiting for a server's
// state, and paging invoice items. A short-lived Node process can hand its own transport instead
// of fetch (transport.ts: the `nubis` command sends on node:http, sparing undici's load).

import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './generated/schema.ts';
import { type Transport, transportClient } from './transport.ts';

export type * from './generated/schema.ts';

/** The client: `client.GET('/v1.3/server/list')`, `client.POST('/v1.3/server/create', { body })`… */
export type NubisClient = Client<paths>;

export interface NubisClientOptions {
  /** Where Nubis listens, e.g. `http://localhost:8080` (no trailing path: operations carry `/v1.3`, `/v1`, `/admin`). */
  baseUrl: string;
  /**
   * An account token (register, login or token create) or the operator's ADMIN_TOKEN, sent as
   * `Authorization: Bearer`. A function is asked before every request (a console that logs in later).
   */
  token?: string | null | (() => string | null | undefined);
  /** A fetch implementation other than the global one (tests, proxies). */
  fetch?: typeof globalThis.fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * Sends the requests instead of fetch (transport.ts): plain values in and out, for a process
   * that should not load fetch's machinery. `response` is then a `TransportAnswer` (status, ok,
   * url, headers.get), and neither middleware (`use`) nor `parseAs: 'stream'` is offered.
   */
  transport?: Transport;
}

/** A client for one Nubis server. Every call resolves to `{ data, error, response }`; `unwrap` throws instead. */
export function createNubisClient(options: NubisClientOptions): NubisClient {
  if (options.transport)
    return transportClient({
      baseUrl: options.baseUrl,
      token: options.token,
      headers: options.headers,
      transport: options.transport,
    });
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: options.headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const { token } = options;
  if (token) {
    client.use({
      onRequest({ request }) {
        const value = typeof token === 'function' ? token() : token;
        if (value && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${value}`);
        return request;
      },
    });
  }
  return client;
}

export * from './errors.ts';
export * from './helpers.ts';
export type { Transport, TransportAnswer, TransportRequest, TransportResponse } from './transport.ts';
