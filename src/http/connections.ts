// Connection hygiene and graceful shutdown: the timeouts and the connection cap of the HTTP
// server, the answer to a request Node refuses before Fastify sees it (timeout, oversized or
// malformed head), and the drain on shutdown (stop accepting, finish what is in flight within a
// deadline, close idle keep-alive connections at once, answer late arrivals 503 + Connection: close).

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Logger } from '../platform/context.ts';
import { ownErrors } from '../platform/own-errors.ts';
import { statusLine } from './error-mapping.ts';
import { closeListeners, extraListenersClosed } from './listeners.ts';

/** What the shutdown tells the HTTP layer. */
export interface Lifecycle {
  /** True from the first moment of shutdown: /readyz answers 503. */
  stopping: boolean;
  /** True once what arrived before the shutdown is taken in (settleReceived): new requests 503 + close. */
  draining: boolean;
  /** The HTTP server's connections and requests, counted once the app is built. */
  connections: ConnectionCounts;
}

export interface ConnectionCounts {
  accepted: () => number;
  requests: () => number;
}

export function createLifecycle(): Lifecycle {
  return { stopping: false, draining: false, connections: { accepted: () => 0, requests: () => 0 } };
}

/** Timeouts and the cap, applied to the Node server under Fastify. */
export function applyConnectionLimits(server: Server, config: Config): void {
  server.headersTimeout = config.headersTimeoutMs;
  // Node wants the request timeout at least the headers timeout.
  server.requestTimeout = Math.max(config.requestTimeoutMs, config.headersTimeoutMs);
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  // MAX_CONNECTIONS itself is counted in connection-share.ts over the connections let in: a
  // connection refused for its address's share is open for an instant, and while an attacker
  // re-opens them those instants must not take the slots of others. Node refuses past twice it.
  server.maxConnections = 2 * config.maxConnections;
}

/**
 * How often Node looks for connections past their headers or request timeout: a fraction of the
 * shorter one (Node's default, 30 s, would let a silent connection live 40 s past a 10 s timeout).
 */
export function connectionsCheckingInterval(config: Config): number {
  return Math.max(100, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4));
}

/**
 * Node refused a request before routing (timeout, a head too large, a malformed request): answer
 * in the API's error shape, with the headers every answer carries, and close the connection.
 * Fastify calls it bound to the app; a failure is logged and the connection closed.
 */
export function clientErrorHandler(this: { log: Logger }, error: NodeJS.ErrnoException, socket: Socket): void {
  ownErrors(this.log, 'the clientError listener', answerClientError, (_error, failed) => failed.destroy())(
    error,
    socket,
  );
}

function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? 408
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? 431
        : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
          ? 413
          : 400;
  const reason =
    status === 408
      ? 'the request did not arrive in time'
      : status === 431
        ? 'request headers too large'
        : status === 413
          ? 'request body too large'
          : 'malformed HTTP request';
  const body = JSON.stringify({ errors: { response: statusLine(status), reason } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${statusLine(status)}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroySoon();
}

const served = Symbol('requests served');
const active = Symbol('requests under way');
interface TrackedSocket extends Socket {
  [served]?: number;
  [active]?: number;
}

/**
 * Node's `closeIdleConnections` (which `server.close()` also calls) closes connections that have
 * not sent a request yet too, among them those whose request is already on its way: reset in
 * flight. Here only connections that were answered and wait for another request are idle; a new
 * connection is left to send its request (answered 503 while draining) or to meet the timeouts.
 * Also counts accepted connections, for the drain.
 */
export function trackConnections(server: Server, log: Logger): ConnectionCounts {
  const sockets = new Set<TrackedSocket>();
  let accepted = 0;
  let requests = 0;
  server.on(
    'connection',
    ownErrors(log, 'the connection tracking listener', (socket: TrackedSocket) => {
      accepted++;
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    }),
  );
  server.on(
    'request',
    ownErrors(log, 'the request tracking listener', (request: IncomingMessage, response: ServerResponse) => {
      requests++;
      const socket = request.socket as TrackedSocket;
      socket[active] = (socket[active] ?? 0) + 1;
      response.once('close', () => {
        socket[active] = (socket[active] ?? 1) - 1;
        socket[served] = (socket[served] ?? 0) + 1;
      });
    }),
  );
  server.closeIdleConnections = () => {
    for (const socket of sockets) if (socket[served] && !socket[active]) socket.destroy();
  };
  return { accepted: () => accepted, requests: () => requests };
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const afterPoll = () => new Promise((resolve) => setImmediate(resolve));

/**
 * A request whose bytes reached the server before the shutdown was received, even if it still
 * waits in the kernel's buffers (the signal can be handled in the same turn of the event loop as
 * the reads, before them, or while the loop was busy). So before new requests are refused, the
 * loop turns until it has run at least `minMs` and three whole turns took in no new connection
 * and no new request: connections waiting to be accepted are accepted, their bytes read and
 * parsed, and their requests started like any other. Turns, not time: a loop busy for a while
 * (a first request compiling its schemas) reads what waited as soon as it turns again. `maxMs`
 * only bounds a stream of new requests that never pauses.
 */
export async function settleReceived(counts: ConnectionCounts, minMs = 100, maxMs = 5_000): Promise<void> {
  const began = Date.now();
  let seen = -1;
  let quiet = 0;
  while (Date.now() - began < maxMs) {
    const now = counts.accepted() + counts.requests();
    quiet = now === seen ? quiet + 1 : 0;
    if (quiet >= 3 && Date.now() - began >= minMs) return;
    seen = now;
    // Two setImmediates: a whole poll phase (accepts and reads) runs in between.
    await afterPoll();
    await afterPoll();
    if (quiet >= 3) await tick(10);
  }
}

/**
 * Closes every listener (listeners.ts: several with HOST=localhost): new connections are refused
 * from now on; open ones stay. (Fastify's own close later waits on the same server for its
 * connections to end; the drain waits for the other listeners' too.)
 */
export function stopAccepting(app: FastifyInstance): void {
  closeListeners(app);
}

/**
 * Drains and closes the HTTP side: the listener is closed (stopAccepting) and `lifecycle.draining`
 * is set. Idle keep-alive connections close at once and every answer from now on carries
 * `Connection: close`; at the deadline the rest are cut. Answers whether everything finished in time.
 */
export async function drainHttp(app: FastifyInstance, deadlineMs: number): Promise<boolean> {
  const server = app.server;
  server.closeIdleConnections();
  const idleSweep = setInterval(
    ownErrors(app.log, "the drain's idle sweep", () => server.closeIdleConnections()),
    100,
  );
  let inTime = true;
  const deadline = setTimeout(
    ownErrors(app.log, "the drain's deadline", () => {
      inTime = false;
      server.closeAllConnections();
    }),
    deadlineMs,
  );
  try {
    await Promise.all([app.close(), extraListenersClosed(app)]);
  } finally {
    clearInterval(idleSweep);
    clearTimeout(deadline);
  }
  return inTime;
}
