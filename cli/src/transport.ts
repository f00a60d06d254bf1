// How the CLI's calls travel: node:http (node:https for an https URL), not fetch. A command is a
// process of its own that makes a call or two, and fetch's first use loads undici with
// node:http2, node:tls and node:zlib behind it, about 60 ms of CPU at every command; node:http is
// a few. node:http is loaded only when a call is made, so `--help` loads neither.

import type { Transport, TransportResponse } from '@nubis/sdk';

/**
 * A request that got no answer: refused, unknown host, reset, a certificate refused, or silence.
 * The message is the reason in a few words: the code of a socket error (ECONNREFUSED), what
 * TLS refused and its code, or how long it waited.
 */
export class UnreachableError extends Error {
  readonly code: string;
  constructor(reason: string, code: string) {
    super(reason);
    this.code = code;
  }
}

/** The transport, giving up on a connection that stays silent for `timeoutMs`. */
export function nodeTransport(timeoutMs: number): Transport {
  return async (request) => {
    // getBuiltinModule, not `import`: an ESM import of node:http builds its facade by reading every
    // export, and the WebSocket ones load undici, the very load this module is here to spare.
    const { request: send } = request.url.startsWith('https:')
      ? process.getBuiltinModule('node:https')
      : process.getBuiltinModule('node:http');
    return new Promise<TransportResponse>((resolve, reject) => {
      const headers = { ...request.headers };
      if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
      const outgoing = send(request.url, { method: request.method, headers, signal: request.signal }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks) }),
        );
        incoming.on('error', (error) => reject(unreachable(error)));
      });
      // Idle time on the socket: a server that accepts and never answers (or stops mid-answer).
      outgoing.setTimeout(timeoutMs, () =>
        outgoing.destroy(new UnreachableError(`no answer within ${timeoutMs / 1000} s`, 'timeout')),
      );
      outgoing.on('error', (error) => reject(unreachable(error)));
      outgoing.end(request.body);
    });
  };
}

function unreachable(error: Error & { code?: string; syscall?: string }): Error {
  if (error instanceof UnreachableError || error.name === 'AbortError') return error;
  if (error.syscall && error.code) return new UnreachableError(error.code, error.code);
  return new UnreachableError(error.code ? `${error.message} (${error.code})` : error.message, error.code ?? 'failed');
}
