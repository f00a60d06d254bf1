// One client address's share of the connections, and a short life for a connection that sends
// nothing. Within HEADERS_TIMEOUT_MS a client could otherwise open MAX_CONNECTIONS silent
// connections and keep re-opening them, and every other client would be refused.
//
// The address is the connection's peer: X-Forwarded-For arrives only with a request's headers,
// after the connection is taken. A peer trusted as a proxy (TRUST_PROXY) speaks for everyone
// behind it, so its connections are not capped per address (MAX_CONNECTIONS still holds; the
// proxy limits its own clients).

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../platform/context.ts';
import { ownErrors } from '../platform/own-errors.ts';

export interface ConnectionShare {
  maxConnections: number;
  maxConnectionsPerAddress: number;
  firstByteTimeoutMs: number;
  /** Whether a peer is a trusted proxy (the first hop of TRUST_PROXY). */
  isTrustedProxy: (address: string) => boolean;
  log: Logger;
}

const openedAt = Symbol('opened at');
interface NewSocket extends Socket {
  [openedAt]?: number;
}

export function shareConnections(server: Server, share: ConnectionShare): void {
  const held = new Map<string, number>();
  let open = 0;
  // Connections that have not sent a byte yet, oldest first.
  const silent = new Set<NewSocket>();

  // A connection the share could not count is closed: letting it in uncounted would open a way
  // around the cap.
  const admit = (socket: NewSocket) => {
    const address = socket.remoteAddress ?? '';
    if (open >= share.maxConnections) {
      socket.destroy();
      return;
    }
    if (!share.isTrustedProxy(address)) {
      const count = (held.get(address) ?? 0) + 1;
      if (count > share.maxConnectionsPerAddress) {
        socket.destroy();
        return;
      }
      held.set(address, count);
      socket.once('close', () => {
        const left = (held.get(address) ?? 1) - 1;
        if (left > 0) held.set(address, left);
        else held.delete(address);
      });
    }
    open++;
    socket.once('close', () => open--);
    socket[openedAt] = Date.now();
    silent.add(socket);
  };
  server.on(
    'connection',
    ownErrors(share.log, 'the connection share listener', admit, (socket) => socket.destroy()),
  );

  // The HTTP parser reads from the socket's handle directly (no 'data' events): its byte count
  // tells whether anything arrived. Checked a few times per timeout, like Node's own timeouts.
  // Timers run before the poll phase reads: after the process was busy for a while, bytes that
  // arrived meanwhile still wait in the kernel. So a connection found silent is closed only if it
  // is still silent once a poll phase has run (setImmediate runs right after it).
  const close = ownErrors(share.log, 'the silent connection sweep', (overdue: NewSocket[]) => {
    for (const socket of overdue)
      if (!socket.destroyed && socket.bytesRead === 0) {
        silent.delete(socket);
        socket.destroy();
      }
  });
  const check = setInterval(
    ownErrors(share.log, 'the silent connection check', () => {
      const now = Date.now();
      const overdue: NewSocket[] = [];
      for (const socket of silent) {
        if (socket.destroyed || socket.bytesRead > 0) silent.delete(socket);
        else if (now - (socket[openedAt] ?? now) >= share.firstByteTimeoutMs) overdue.push(socket);
      }
      if (overdue.length) setImmediate(close, overdue);
    }),
    Math.max(50, Math.floor(share.firstByteTimeoutMs / 4)),
  );
  check.unref();
  server.once('close', () => clearInterval(check));
}
