// An informer on the engine's lifecycle events (GET /1.0/events?type=lifecycle, a WebSocket): it
// keeps which servers' instances changed (started, stopped, deleted, updated, created, renamed,
// restarted — each lifecycle event naming an instance), so a reconciliation re-reads only those. It
// cannot vouch for what it did not hear: before it first listened, while its stream was down, and
// once COMPUTE_RESYNC_SECONDS passed since the last full read (the safety net), it answers "read
// everything". A stream that stops answering pings is dropped and opened again.

import type WebSocket from 'ws';
import type { LxdClient } from './lxd-client.ts';
import { serverOfInstance, serverOfRescueInstance } from './lxd-names.ts';

export interface InformerTiming {
  /** Longest time between two full reads (COMPUTE_RESYNC_SECONDS). */
  resyncMs: number;
  /** How often the stream is pinged; one ping left unanswered drops it. */
  heartbeatMs?: number;
  /** Wall-clock milliseconds (a test moves it). */
  now?: () => number;
}

/** The server a lifecycle event's source names (`/1.0/instances/nubis-<uuid>[/snapshots/…][?project=…]`). */
export function serverOfEventSource(source: string): string | null {
  const match = /^\/1\.0\/instances\/([^/?]+)/.exec(source);
  if (!match) return null;
  const name = decodeURIComponent(match[1]!);
  return serverOfInstance(name) ?? serverOfRescueInstance(name);
}

export class LxdInformer {
  readonly #client: LxdClient;
  readonly #resyncMs: number;
  readonly #heartbeatMs: number;
  readonly #now: () => number;
  #socket: WebSocket | null = null;
  #listening = false;
  /** Events may have been missed since the last full read (never listened, or the stream dropped). */
  #missed = true;
  #lastFullRead = Number.NEGATIVE_INFINITY;
  #changed = new Set<string>();
  #retryMs = 1000;
  #reconnect: NodeJS.Timeout | null = null;
  #heartbeat: NodeJS.Timeout | null = null;
  #closed = false;
  /** Messages the stream brought, of any kind (a test waits on it). */
  heard = 0;

  constructor(client: LxdClient, timing: InformerTiming) {
    this.#client = client;
    this.#resyncMs = timing.resyncMs;
    this.#heartbeatMs = timing.heartbeatMs ?? 15_000;
    this.#now = timing.now ?? Date.now;
  }

  /**
   * The servers whose instances changed since the last call, or null when everything must be
   * read: the caller then reads everything, after this call (events arriving meanwhile are kept
   * for the next one). The first call opens the stream.
   */
  take(): ReadonlySet<string> | null {
    if (!this.#socket && !this.#reconnect && !this.#closed) this.#open();
    const now = this.#now();
    if (!this.#listening || this.#missed || now - this.#lastFullRead >= this.#resyncMs) {
      // Heard from now on (when listening): a full read started after this call misses nothing.
      if (this.#listening) this.#missed = false;
      this.#lastFullRead = now;
      this.#changed = new Set();
      return null;
    }
    const changed = this.#changed;
    this.#changed = new Set();
    return changed;
  }

  close(): void {
    this.#closed = true;
    if (this.#reconnect) clearTimeout(this.#reconnect);
    this.#drop();
  }

  #open(): void {
    let socket: WebSocket;
    try {
      socket = this.#client.events('lifecycle');
    } catch {
      this.#retry();
      return;
    }
    this.#socket = socket;
    let answered = true;
    socket.on('open', () => {
      this.#listening = true;
      this.#retryMs = 1000;
      this.#heartbeat = setInterval(() => {
        if (!answered) {
          socket.terminate();
          return;
        }
        answered = false;
        socket.ping();
      }, this.#heartbeatMs);
      this.#heartbeat.unref();
    });
    socket.on('pong', () => {
      answered = true;
    });
    socket.on('message', (data) => this.#heard(data.toString()));
    // 'close' follows an error: the stream is opened again there.
    socket.on('error', () => {});
    socket.on('close', () => {
      if (this.#socket !== socket) return;
      this.#drop();
      this.#retry();
    });
  }

  /** The stream is open: what changes is heard. */
  get listening(): boolean {
    return this.#listening;
  }

  #heard(text: string): void {
    this.heard++;
    let event: { type?: string; metadata?: { source?: string } };
    try {
      event = JSON.parse(text);
    } catch {
      return;
    }
    if (event.type !== 'lifecycle' || typeof event.metadata?.source !== 'string') return;
    const uuid = serverOfEventSource(event.metadata.source);
    if (uuid) this.#changed.add(uuid);
  }

  /** Forgets the stream: what happens until the next one is open is not heard. */
  #drop(): void {
    this.#listening = false;
    this.#missed = true;
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
    const socket = this.#socket;
    this.#socket = null;
    socket?.removeAllListeners('close');
    socket?.on('error', () => {});
    socket?.terminate();
  }

  #retry(): void {
    if (this.#closed) return;
    this.#reconnect = setTimeout(() => {
      this.#reconnect = null;
      this.#open();
    }, this.#retryMs);
    this.#reconnect.unref();
    this.#retryMs = Math.min(30_000, this.#retryMs * 2);
  }
}
