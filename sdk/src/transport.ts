// The client over a transport of the caller's own instead of fetch. In Node, the first touch of
// fetch, Request, Response or Headers loads the bundled undici, with node:http2, node:tls and
// node:zlib behind it: about 60 ms of CPU before the first byte is sent. openapi-fetch touches
// Headers on every call, so a short-lived process (the `nubis` command) would pay that on every
// run. This client builds the same URLs (openapi-fetch's own serializers) and answers the same
// `{ data, error, response }`, with a transport that moves plain values: the CLI's sends them
// with node:http.

import { createFinalURL, createQuerySerializer, defaultPathSerializer, type Client } from 'openapi-fetch';
import type { paths } from './generated/schema.ts';

/** One request, as the client hands it to a transport. Header names are lower case. */
export interface TransportRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The JSON text of the body, when the call has one. */
  body?: string;
  signal?: AbortSignal;
}

/** The answer a transport resolves to; a request that gets none (refused, reset, timed out) rejects instead. */
export interface TransportResponse {
  status: number;
  /** As node:http gives them: lower-case names, a repeated header as an array. */
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array;
}

/** Sends one request and resolves to the answer. */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

/**
 * What `response` is on a call made through a transport: status, ok, url and `headers.get()`,
 * the parts of a Response the SDK's helpers (and most callers) read.
 */
export interface TransportAnswer {
  status: number;
  ok: boolean;
  url: string;
  headers: { get(name: string): string | null; has(name: string): boolean };
}

interface CallOptions {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown>; header?: Record<string, unknown> };
  body?: unknown;
  headers?: HeaderSource;
  parseAs?: 'json' | 'text' | 'arrayBuffer' | 'blob' | 'stream';
  signal?: AbortSignal;
}

export interface TransportClientOptions {
  baseUrl: string;
  token?: string | null | (() => string | null | undefined);
  headers?: Record<string, string>;
  transport: Transport;
}

/** A call's headers as openapi-fetch takes them: a record, a Headers object, or [name, value] pairs. */
type HeaderSource = Record<string, unknown> | Iterable<[string, unknown]> | undefined;

function entriesOf(source: HeaderSource): [string, unknown][] {
  if (!source) return [];
  if (Symbol.iterator in source) return [...(source as Iterable<[string, unknown]>)];
  return Object.entries(source);
}

function headerRecord(...sources: HeaderSource[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const source of sources)
    for (const [name, value] of entriesOf(source)) {
      if (value === null) delete headers[name.toLowerCase()];
      else if (value !== undefined)
        headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    }
  return headers;
}

function answerOf(url: string, status: number, raw: TransportResponse['headers']): TransportAnswer {
  const get = (name: string): string | null => {
    const value = raw[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  };
  return { status, ok: status >= 200 && status < 300, url, headers: { get, has: (name) => get(name) !== null } };
}

/** A NubisClient whose calls go through `options.transport`. */
export function transportClient(options: TransportClientOptions): Client<paths> {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const querySerializer = createQuerySerializer();
  async function call(method: string, schemaPath: string, init: CallOptions = {}) {
    const url = createFinalURL(schemaPath, {
      baseUrl,
      params: init.params ?? {},
      querySerializer,
      pathSerializer: defaultPathSerializer,
    });
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const headers = headerRecord(
      body === undefined ? {} : { 'content-type': 'application/json' },
      options.headers,
      init.headers,
      init.params?.header,
    );
    const token = typeof options.token === 'function' ? options.token() : options.token;
    if (token && !headers.authorization) headers.authorization = `Bearer ${token}`;
    const answer = await options.transport({ method, url, headers, body, signal: init.signal });
    const response = answerOf(url, answer.status, answer.headers) as unknown as Response;
    const text = () => new TextDecoder().decode(answer.body);
    if (answer.status === 204 || method === 'HEAD' || answer.body.byteLength === 0)
      return response.ok ? { data: undefined, response } : { error: undefined, response };
    if (!response.ok) {
      let error: unknown = text();
      try {
        error = JSON.parse(error as string);
      } catch {
        // not JSON: the text as it came
      }
      return { error, response };
    }
    const parseAs = init.parseAs ?? 'json';
    const bytes = answer.body;
    const data =
      parseAs === 'json'
        ? JSON.parse(text())
        : parseAs === 'text'
          ? text()
          : parseAs === 'arrayBuffer'
            ? bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
            : parseAs === 'blob'
              ? new Blob([bytes as Uint8Array<ArrayBuffer>], { type: response.headers.get('content-type') ?? '' })
              : unsupported('parseAs: "stream" needs the fetch path (createNubisClient without transport)');
    return { data, response };
  }
  const method = (name: string) => (schemaPath: string, init?: CallOptions) => call(name, schemaPath, init);
  const client = {
    GET: method('GET'),
    PUT: method('PUT'),
    POST: method('POST'),
    DELETE: method('DELETE'),
    OPTIONS: method('OPTIONS'),
    HEAD: method('HEAD'),
    PATCH: method('PATCH'),
    TRACE: method('TRACE'),
    request: (name: string, schemaPath: string, init?: CallOptions) => call(name.toUpperCase(), schemaPath, init),
    use: () => unsupported('middleware needs the fetch path (createNubisClient without transport)'),
    eject: () => unsupported('middleware needs the fetch path (createNubisClient without transport)'),
  };
  return client as unknown as Client<paths>;
}

function unsupported(what: string): never {
  throw new Error(what);
}
