// The machine console's WebSocket (issue 25): GET /v1.3/server/console/{server_id} for the
// server's owner, GET /admin/servers/{server}/console for the operator. A browser cannot set
// headers on a WebSocket, so the token travels as a subprotocol (as Kubernetes does):
// `Sec-WebSocket-Protocol: nubis.console, bearer.<base64url token>` (operator: `operator.<…>`),
// never in the URL, where logs would keep it. Binary frames carry the console's bytes both
// ways; a text frame {"resize": {"cols", "rows"}} sets the window. Close codes: 4401 no or a
// removed token, 4403 blocked (at once or mid-session), 4404 no such server, 4409 no machine
// (simulated) or stopped; 4408 a viewer that reads no output for 10 s; 1000 once the machine's
// console ends. Access is checked again every few seconds. An upgrade this file does not take is
// answered in HTTP (400 malformed, 404 elsewhere), never thrown.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type WebSocket from 'ws';
import type { WebSocketServer } from 'ws';
import type { Logger, Platform } from '../platform/context.ts';
import { ownErrors } from '../platform/own-errors.ts';
import { Conflict, Forbidden, NotFound, Unauthorized } from '../platform/errors.ts';
import type { MachineConsole } from '../compute/compute-driver.ts';
import {
  auditOperatorConsole,
  type ConsoleViewer,
  consoleEnds,
  consoleServer,
  openMachineConsole,
} from '../server-console/console.service.ts';
import { consoleRelay, STALL_CODE, STALL_REASON } from '../server-console/console-relay.ts';

export const CONSOLE_PROTOCOL = 'nubis.console';
/** How often an open console checks that its viewer still may keep it. */
const RECHECK_MS = 2000;
const routes: { pattern: RegExp; kind: ConsoleViewer['kind']; path: string }[] = [
  { pattern: /^\/v1\.3\/server\/console\/([^/?#]+)$/, kind: 'customer', path: '/v1.3/server/console/:server_id' },
  { pattern: /^\/admin\/servers\/([^/?#]+)\/console$/, kind: 'operator', path: '/admin/servers/:server/console' },
];

/** One console session as its upgrade request asked for it. */
interface Session {
  viewer: ConsoleViewer;
  ref: string;
  reqId: string;
  address: string;
  /** The route, as the audit log names calls. */
  path: string;
}

function closeCode(error: unknown): [number, string] {
  if (error instanceof Unauthorized) return [4401, error.message];
  if (error instanceof Forbidden) return [4403, error.message];
  if (error instanceof NotFound) return [4404, error.message];
  if (error instanceof Conflict) return [4409, error.message];
  return [1011, 'the console could not be opened'];
}

/** The token a subprotocol carries for this kind of viewer, or null. */
function presented(request: IncomingMessage, kind: ConsoleViewer['kind']): string | null {
  const prefix = kind === 'operator' ? 'operator.' : 'bearer.';
  const offered = String(request.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((entry) => entry.trim());
  const entry = offered.find((value) => value.startsWith(prefix));
  if (!entry) return null;
  try {
    return Buffer.from(entry.slice(prefix.length), 'base64url').toString('utf8');
  } catch {
    return null;
  }
}

/**
 * The console an upgrade request's target names, or the status that refuses it: 400 for a target
 * that is not a path or whose server reference is not valid percent-encoded UTF-8 (or holds a
 * control character), 404 for a path
 * that serves no upgrade. Read by hand, not with `new URL` (it throws on `//`).
 */
export function consoleTarget(
  url: string,
): { kind: ConsoleViewer['kind']; ref: string; path: string } | { status: 400 | 404 } {
  if (!url.startsWith('/') || url.startsWith('//')) return { status: 400 };
  const path = url.split(/[?#]/, 1)[0]!;
  for (const route of routes) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    let ref: string;
    try {
      ref = decodeURIComponent(match[1]!);
    } catch {
      return { status: 400 };
    }
    // No server's id or name holds a control character (PostgreSQL refuses a NUL outright).
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it refuses
    return /[\u0000-\u001f\u007f]/.test(ref) ? { status: 400 } : { kind: route.kind, ref, path: route.path };
  }
  return { status: 404 };
}

const reasons: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 500: 'Internal Server Error' };

/** Answers an upgrade the console does not take, then lets the connection go. */
function refuseUpgrade(log: Logger, socket: Duplex, status: 400 | 404 | 500): void {
  if (socket.destroyed) return;
  socket.end(`HTTP/1.1 ${status} ${reasons[status]}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  // A client that never reads the answer does not keep the socket. The timer runs outside any
  // request: what it throws is its own (own-errors.ts), and the socket is let go all the same.
  const letGo = () => socket.destroy();
  setTimeout(ownErrors(log, "the refused upgrade's timer", letGo, letGo), 5000).unref();
}

/**
 * Attaches the console endpoints to the app's HTTP server; every open console closes with the app.
 * The ws package loads with the first console asked for: at start it would load node:zlib and
 * its own modules (~10 ms of CPU) into every process, each test file's included.
 */
export function serverConsoleSockets(app: FastifyInstance, ctx: Platform): void {
  let sockets: Promise<WebSocketServer> | null = null;
  const socketServer = () =>
    (sockets ??= import('ws').then(
      ({ WebSocketServer }) =>
        new WebSocketServer({
          noServer: true,
          maxPayload: 64 * 1024,
          handleProtocols: (protocols) => (protocols.has(CONSOLE_PROTOCOL) ? CONSOLE_PROTOCOL : false),
        }),
    ));
  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Outside Fastify: nothing here may throw past this listener (one request never ends the process).
    socket.on('error', () => {});
    try {
      const target = consoleTarget(request.url ?? '');
      if ('status' in target) {
        refuseUpgrade(ctx.log, socket, target.status);
        return;
      }
      const session: Session = {
        viewer: { kind: target.kind, token: presented(request, target.kind) ?? '' },
        ref: target.ref,
        reqId: requestId(ctx, request),
        address: request.socket.remoteAddress ?? '',
        path: target.path,
      };
      socketServer().then(
        (server) => {
          // The client may have gone while ws loaded: nothing to upgrade.
          if (socket.destroyed) return;
          server.handleUpgrade(request, socket, head, (client) => {
            relay(ctx, client, session).catch((error: unknown) => {
              ctx.log.error({ reqId: session.reqId, server: session.ref, err: error }, 'console: the session failed');
              client.close(1011, 'the console failed');
            });
          });
        },
        (error: unknown) => {
          ctx.log.error({ err: error, url: request.url }, 'console: an upgrade request failed');
          refuseUpgrade(ctx.log, socket, 500);
        },
      );
    } catch (error) {
      ctx.log.error({ err: error, url: request.url }, 'console: an upgrade request failed');
      refuseUpgrade(ctx.log, socket, 500);
    }
  });
  app.addHook('preClose', async () => {
    if (!sockets) return;
    const server = await sockets;
    for (const client of server.clients) client.close(1001, 'Nubis is shutting down');
    server.close();
  });
}

/** The request id the session's log lines carry: the client's X-Request-Id when plausible, as for requests. */
function requestId(ctx: Platform, request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : ctx.random.uuid();
}

/**
 * One console session: the viewer's access checked, the machine's console opened and relayed
 * (console-relay.ts bounds its buffers), access checked again every few seconds, and one log line
 * when it opens and one when it closes. Everything it runs catches its own errors: a session that
 * fails closes 1011, and the process goes on.
 */
async function relay(ctx: Platform, client: WebSocket, session: Session): Promise<void> {
  const { viewer, ref } = session;
  const who = { reqId: session.reqId, server: ref, viewer: viewer.kind, address: session.address };
  let machine: MachineConsole | null = null;
  let timer: NodeJS.Timeout | null = null;
  let opened = false;
  const close = (code: number, reason: string) => {
    if (client.readyState === client.OPEN || client.readyState === client.CONNECTING)
      client.close(code, reason.slice(0, 120));
  };
  const flow = consoleRelay(client, {
    stalled() {
      close(STALL_CODE, STALL_REASON);
      machine?.close();
    },
    failed(error) {
      ctx.log.error({ ...who, err: error }, 'console: the relay failed');
      close(1011, 'the console failed');
      machine?.close();
    },
  });
  // A frame above maxPayload or a broken frame: ws closes the socket (1009, 1002) and reports it here.
  client.on('error', (error) => ctx.log.info({ ...who, err: error.message }, 'console: the viewer sent a bad frame'));
  client.on('close', (code: number, reason: Buffer) => {
    try {
      if (timer) clearInterval(timer);
      flow.stop();
      machine?.close();
      if (opened)
        ctx.log.info(
          { ...who, code, reason: reason.toString('utf8'), bytesIn: flow.counts.in, bytesOut: flow.counts.out },
          'console: session closed',
        );
    } catch (error) {
      ctx.log.error({ ...who, err: error }, 'console: closing the session failed');
    }
  });
  try {
    if (!viewer.token) throw new Unauthorized();
    const uuid = await consoleServer(ctx, viewer, ref);
    machine = await openMachineConsole(ctx, uuid, flow.size());
  } catch (error) {
    const [code, reason] = closeCode(error);
    if (code === 1011) ctx.log.warn({ ...who, err: error }, 'console: opening failed');
    close(code, reason);
    return;
  }
  if (client.readyState !== client.OPEN) {
    machine.close();
    return;
  }
  const open = machine;
  opened = true;
  ctx.log.info(who, 'console: session opened');
  if (viewer.kind === 'operator')
    await auditOperatorConsole(ctx, session.address, ref, session.path).catch((error: unknown) =>
      ctx.log.error({ ...who, err: error }, 'console: the operator audit log could not be written'),
    );
  open.onEnd((reason) => close(1000, reason));
  flow.attach(open);
  timer = setInterval(() => {
    consoleEnds(ctx, viewer, ref)
      .then((end) => {
        if (!end) return;
        close(end.code, end.reason);
        open.close();
      })
      .catch((error: unknown) => ctx.log.warn({ ...who, err: error }, 'console: the access check failed'));
  }, RECHECK_MS);
  timer.unref();
}
