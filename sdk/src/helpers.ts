// Conveniences that earn their place: waiting for a server to reach a state (actions answer
// 202 and finish later), and walking every invoice item (the API pages them).

import type { Client } from 'openapi-fetch';
import type { InvoiceItem, paths, PowerState, Server } from './generated/schema.ts';
import { NubisError, unwrap } from './errors.ts';

export interface WaitOptions {
  /** Give up after this many milliseconds of real time (default 120 000). */
  timeoutMs?: number;
  /** Time between polls (default 1 000 ms). */
  intervalMs?: number;
  /** Stops the wait early. */
  signal?: AbortSignal;
  /** Called with the server after every poll (progress indicators). */
  onPoll?: (server: Server) => void;
}

/** The wait ran out before the server reached the state; `last` is the server as last seen. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
  readonly last: Server | null;
  constructor(message: string, last: Server | null) {
    super(message);
    this.last = last;
  }
}

/**
 * Polls `/v1.3/server/info` until the server's `power` is one of `states` (e.g. `'running'`,
 * or `['running', 'stopped']`) and returns it. A 404 throws (the server is gone); pass
 * `'removed'` to wait for exactly that instead.
 */
export async function waitForServer(
  client: Client<paths>,
  serverId: number | string,
  states: PowerState | 'removed' | readonly (PowerState | 'removed')[],
  options: WaitOptions = {},
): Promise<Server | null> {
  const wanted = new Set<string>([states].flat());
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  const interval = options.intervalMs ?? 1_000;
  let last: Server | null = null;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      last = await unwrap(
        client.GET('/v1.3/server/info/{server_id}', {
          params: { path: { server_id: String(serverId) } },
          signal: options.signal,
        }),
      );
    } catch (error) {
      if (error instanceof NubisError && error.status === 404 && wanted.has('removed')) return null;
      throw error;
    }
    options.onPoll?.(last);
    if (wanted.has(last.power)) return last;
    if (Date.now() + interval > deadline)
      throw new WaitTimeoutError(
        `server ${serverId} is ${last.power}, not ${[...wanted].join(' or ')}, after ${options.timeoutMs ?? 120_000} ms`,
        last,
      );
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

/** Every invoice item of the token's account, newest first, fetched a page at a time as the caller iterates. */
export async function* invoiceItems(client: Client<paths>): AsyncGenerator<InvoiceItem> {
  let start = 0;
  for (;;) {
    const page = await unwrap(client.GET('/v1.3/invoice/list', { params: { query: { start_id: start } } }));
    yield* page.invoices;
    start += page.invoices.length;
    if (page.invoices.length === 0 || start >= page.meta.total) return;
  }
}
