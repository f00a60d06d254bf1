// The machine console's WebSocket (issue 25): GET /v1.3/server/console/{server_id} for the
// server's owner, GET /admin/servers/{server}/console for the operator. A browser cannot set
// headers on a WebSocket, so the token travels as a subprotocol (as Kubernetes does):
// `Sec-WebSocket-Protocol: nubis.console, bearer.<base64url token>` (operator: `operator.<…>`),
// never in the URL, where logs would keep it. Binary frames carry the console's bytes both
// ways; a text frame {"resize": {"cols", "rows"}} sets the window. Close codes: 4401 no or a
// removed token, 4403 blocked, 4404 no such server, 4409 no machine (simulated) or stopped;
// 1000 once the machine's console ends. Access is checked again every few seconds.

import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import WebSocket, { WebSocketServer } from 'ws';
import type { Platform } from '../platform/context.ts';
import { Conflict, Forbidden, NotFound, Unauthorized } from '../platform/errors.ts';
import {
  type ConsoleViewer,
  consoleEnds,
  consoleServer,
  openMachineConsole,
} from '../server-console/console.service.ts';

export const CONSOLE_PROTOCOL = 'nubis.console';
/** How often an open console checks that its viewer still may keep it. */
const RECHECK_MS = 2000;
const routes: { pattern: RegExp; kind: ConsoleViewer['kind'] }[] = [
  { pattern: /^\/v1\.3\/server\/console\/([^/?#]+)$/, kind: 'customer' },
  { pattern: /^\/admin\/servers\/([^/?#]+)\/console$/, kind: 'operator' },
];

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
export function consoleTarget(url: string): { kind: ConsoleViewer['kind']; ref: string } | { status: 400 | 404 } {
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
    return /[\u0000-\u001f\u007f]/.test(ref) ? { status: 400 } : { kind: route.kind, ref };
  }
  return { status: 404 };
}

const reasons: Record<number, string> = { 400: 'Bad Request', 404: 'Not Found', 500: 'Internal Server Error' };

/** Answers an upgrade the console does not take, then lets the connection go. */
function refuseUpgrade(socket: Duplex, status: 400 | 404 | 500): void {
  if (socket.destroyed) return;
  socket.end(`HTTP/1.1 ${status} ${reasons[status]}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  // A client that never reads the answer does not keep the socket.
  setTimeout(() => socket.destroy(), 5000).unref();
}

/** Attaches the console endpoints to the app's HTTP server; every open console closes with the app. */
export function serverConsoleSockets(app: FastifyInstance, ctx: Platform): void {
  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: 64 * 1024,
    handleProtocols: (protocols) => (protocols.has(CONSOLE_PROTOCOL) ? CONSOLE_PROTOCOL : false),
  });
  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Outside Fastify: nothing here may throw past this listener (one request never ends the process).
    socket.on('error', () => {});
    try {
      const target = consoleTarget(request.url ?? '');
      if ('status' in target) {
        refuseUpgrade(socket, target.status);
        return;
      }
      sockets.handleUpgrade(request, socket, head, (client) => {
        void relay(ctx, client, { kind: target.kind, token: presented(request, target.kind) ?? '' }, target.ref);
      });
    } catch (error) {
      ctx.log.error({ err: error, url: request.url }, 'console: an upgrade request failed');
      refuseUpgrade(socket, 500);
    }
  });
  app.addHook('preClose', async () => {
    for (const client of sockets.clients) client.close(1001, 'Nubis is shutting down');
    sockets.close();
  });
}

async function relay(ctx: Platform, client: WebSocket, viewer: ConsoleViewer, ref: string): Promise<void> {
  const close = (code: number, reason: string) => {
    if (client.readyState === WebSocket.OPEN || client.readyState === WebSocket.CONNECTING)
      client.close(code, reason.slice(0, 120));
  };
  // Keystrokes and window sizes that come before the machine's console is open wait for it.
  const early: (Buffer | { cols: number; rows: number })[] = [];
  let size = { cols: 80, rows: 24 };
  let machine: Awaited<ReturnType<typeof openMachineConsole>> | null = null;
  client.on('message', (message: Buffer, isBinary: boolean) => {
    if (isBinary) {
      if (machine) machine.write(message);
      else early.push(message);
      return;
    }
    try {
      const { resize } = JSON.parse(message.toString('utf8')) as { resize?: { cols?: unknown; rows?: unknown } };
      const cols = Number(resize?.cols);
      const rows = Number(resize?.rows);
      if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 1 || rows < 1 || cols > 1000 || rows > 1000)
        return;
      size = { cols, rows };
      if (machine) machine.resize(cols, rows);
      else early.push(size);
    } catch {
      // Not a control message: ignored.
    }
  });
  let timer: NodeJS.Timeout | null = null;
  client.on('close', () => {
    if (timer) clearInterval(timer);
    machine?.close();
  });
  try {
    if (!viewer.token) throw new Unauthorized();
    const uuid = await consoleServer(ctx, viewer, ref);
    machine = await openMachineConsole(ctx, uuid, size);
  } catch (error) {
    const [code, reason] = closeCode(error);
    if (code === 1011) ctx.log.warn({ err: (error as Error).message, server: ref }, 'console: opening failed');
    close(code, reason);
    return;
  }
  if (client.readyState !== WebSocket.OPEN) {
    machine.close();
    return;
  }
  const open = machine;
  open.onData((data) => {
    if (client.readyState === WebSocket.OPEN) client.send(data, { binary: true });
  });
  open.onEnd((reason) => close(1000, reason));
  for (const item of early.splice(0)) {
    if (Buffer.isBuffer(item)) open.write(item);
    else open.resize(item.cols, item.rows);
  }
  timer = setInterval(() => {
    void consoleEnds(ctx, viewer, ref).then(
      (reason) => {
        if (reason) {
          close(reason === 'the token was removed' ? 4401 : 1000, reason);
          open.close();
        }
      },
      () => {},
    );
  }, RECHECK_MS);
  timer.unref();
}
