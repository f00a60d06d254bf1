// Lingering close, as nginx does it: when the server answers a request before its body has
// arrived (a body over the limit, refused at once) and then closes the connection, closing at
// once would make the kernel reset the connection while the client is still sending, and a reset
// discards the answer the client has not read yet. Instead the server half-closes (its answer
// and a FIN go out) and reads and discards what keeps coming, until the client closes its side
// or a bound is reached (LINGER_BYTES read, LINGER_MS in all, or LINGER_IDLE_MS without a byte),
// and only then closes.

import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from '../platform/context.ts';
import { ownErrors } from '../platform/own-errors.ts';

/** Bytes read and discarded at most before closing anyway (the 256 KiB body limit, many times over). */
export const LINGER_BYTES = 64 * 1024 * 1024;
/** Milliseconds a refused upload may go on before the connection is closed anyway. */
export const LINGER_MS = 10_000;
/** Milliseconds without a byte after which the client is taken to have stopped sending (nginx: lingering_timeout). */
export const LINGER_IDLE_MS = 2_000;
const checkEveryMs = 100;

const reading = Symbol('request whose body is still arriving');
interface LingeringSocket extends Socket {
  [reading]?: IncomingMessage;
}

export function lingerBeforeClosing(server: Server, log: Logger): void {
  server.on(
    'connection',
    ownErrors(log, 'the lingering close listener', (socket: LingeringSocket) => {
      // Node closes a connection after its last answer with destroySoon (and so does the answer to
      // a request it refuses itself): linger instead while a request's body is still arriving.
      const destroySoon = socket.destroySoon.bind(socket);
      // Node calls it from its own listeners: a failure to linger closes at once.
      socket.destroySoon = ownErrors(
        log,
        'the lingering close',
        () => {
          const request = socket[reading];
          if (request && !request.complete && !socket.destroyed) linger(socket, log);
          else destroySoon();
        },
        () => socket.destroy(),
      );
    }),
  );
  server.on(
    'request',
    ownErrors(log, 'the lingering close request listener', (request: IncomingMessage) => {
      (request.socket as LingeringSocket)[reading] = request;
    }),
  );
}

function linger(socket: Socket, log: Logger): void {
  // The answer is written; the FIN follows it. Reading goes on (the HTTP server is half-open).
  socket.end();
  const start = socket.bytesRead;
  const began = Date.now();
  let read = start;
  let lastByteAt = began;
  const check = setInterval(
    ownErrors(
      log,
      'the lingering close check',
      () => {
        const now = Date.now();
        if (socket.bytesRead !== read) {
          read = socket.bytesRead;
          lastByteAt = now;
        }
        if (read - start > LINGER_BYTES || now - began > LINGER_MS || now - lastByteAt > LINGER_IDLE_MS)
          socket.destroy();
      },
      () => socket.destroy(),
    ),
    checkEveryMs,
  );
  check.unref();
  socket.once('close', () => clearInterval(check));
  // The client is done sending and has closed its side: nothing more to read.
  socket.once('end', () => socket.destroy());
  socket.resume();
}
