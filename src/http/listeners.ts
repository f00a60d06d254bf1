// Where the API listens. HOST=localhost names several addresses on most hosts (127.0.0.1 and
// ::1): Fastify would make a second server for each other address itself, outside Nubis's
// connection handling (the connection share, the drain's tracking, the timeouts) and closed only
// once the first one had drained, so it kept accepting through the whole drain. Here Fastify
// listens on the first address; each other one is a plain listener handing its connections to the
// same HTTP server, and closing the listeners closes them all at once.

import dns from 'node:dns';
import type { AddressInfo } from 'node:net';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ownErrors } from '../platform/own-errors.ts';

interface Extra {
  server: NetServer;
  /** Its 'close': once it stopped accepting and every connection it took has ended. */
  ended: Promise<void>;
}

const extraListeners = new WeakMap<FastifyInstance, Extra[]>();

function lookupAll(host: string): Promise<dns.LookupAddress[]> {
  return new Promise((resolve) => {
    // Through the module object, as Fastify does: resolution as the host configures it.
    dns.lookup(host, { all: true }, (error, addresses) => resolve(error ? [] : addresses));
  });
}

function listen(server: NetServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Listens on `host` (every address localhost names, for `localhost`) and answers the first address's URL. */
export async function listenOn(app: FastifyInstance, options: { port: number; host: string }): Promise<string> {
  if (options.host !== 'localhost') return app.listen(options);
  const addresses = [...new Set((await lookupAll(options.host)).map((entry) => entry.address))];
  const [first, ...others] = addresses;
  if (first === undefined) return app.listen(options);
  // A close without the drain (a start that fails later) lets them go too (hooks: before listening).
  app.addHook('onClose', async () => {
    const extras = extraListeners.get(app) ?? [];
    closeExtras(extras);
    await Promise.all(extras.map((extra) => extra.ended));
  });
  const url = await app.listen({ port: options.port, host: first });
  const { port } = app.server.address() as AddressInfo;
  const extras: Extra[] = [];
  for (const address of others) {
    const handOver = ownErrors(
      app.log,
      'the localhost listener',
      (socket: Socket) => void app.server.emit('connection', socket),
      (socket: Socket) => socket.destroy(),
    );
    const extra = createServer(handOver);
    // The HTTP server's own cap (applyConnectionLimits), per listener as Node counts it.
    extra.maxConnections = app.server.maxConnections;
    try {
      await listen(extra, port, address);
      extras.push({ server: extra, ended: new Promise((resolve) => extra.once('close', () => resolve())) });
    } catch (error) {
      // As Fastify: an address of localhost the host cannot bind (no IPv6, say) is left out.
      app.log.warn({ address, err: (error as Error).message }, 'localhost: not listening on this address');
    }
  }
  extraListeners.set(app, extras);
  return url;
}

/** Every listener stops accepting; open connections stay. */
export function closeListeners(app: FastifyInstance): void {
  if (app.server.listening) app.server.close();
  closeExtras(extraListeners.get(app) ?? []);
}

function closeExtras(extras: readonly Extra[]): void {
  for (const { server } of extras) if (server.listening) server.close();
}

/** Resolves once the extra listeners are closed and every connection they took has ended. */
export function extraListenersClosed(app: FastifyInstance): Promise<void> {
  return Promise.all((extraListeners.get(app) ?? []).map((extra) => extra.ended)).then(() => {});
}
