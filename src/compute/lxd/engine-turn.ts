// One container made at a time on an engine, across every Nubis process that drives it. LXD 5.0's
// id-map allocator goes wrong when two isolated containers are made at once (lxd-isolation.ts,
// oneAtATime): oneAtATime keeps one process's creates apart, and this turn keeps apart those of
// several processes on one engine (two Nubis instances, or a deploy's old and new process).
//
// The turn is an engine object, a profile (`nubis-turn-making`) that exists while its holder makes
// a container: taken by creating it (the engine refuses a second profile of one name), given back
// by deleting it. Its description names the holder and the time its hold lapses; the holder pushes
// that time on while it works (making a container of a newly imported image takes minutes), so the
// turn of a process that died lapses, and the next taker overwrites a lapsed turn only if nobody
// changed it since it read it (the engine's ETag, If-Match), so two takers never both win it.

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { LxdError, type LxdClient } from './lxd-client.ts';

export const makingTurnName = 'nubis-turn-making';

export interface EngineTurnOptions {
  /** The profile that is the turn. */
  name?: string;
  /** How long a hold lasts unless its holder pushes it on (it does every third of this). */
  lapseMs?: number;
  /** How often a waiting taker looks again. */
  pollMs?: number;
  /** Who holds it, as the profile's description says (host, process, and a tag of this turn). */
  holder?: string;
}

interface Seen {
  holder: string | null;
  until: number;
  etag: string;
}

const describe = (holder: string, until: number) =>
  `Nubis: making a container, held by ${holder} until ${new Date(until).toISOString()}`;

function seenFrom(description: string, etag: string): Seen {
  const match = description.match(/held by (\S+) until (\S+)$/);
  const until = match ? Date.parse(match[2]!) : Number.NaN;
  // A description Nubis did not write counts as lapsed: the profile is Nubis's by its name.
  return match && Number.isFinite(until) ? { holder: match[1]!, until, etag } : { holder: null, until: 0, etag };
}

/** Runs each piece of work while holding the engine's turn for making containers. */
export function engineTurn(
  client: LxdClient,
  options: EngineTurnOptions = {},
): <T>(work: () => Promise<T>) => Promise<T> {
  const name = options.name ?? makingTurnName;
  const lapseMs = options.lapseMs ?? 60_000;
  const pollMs = options.pollMs ?? 250;
  const holder = options.holder ?? `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  const path = `/1.0/profiles/${name}`;
  const body = () => ({ description: describe(holder, Date.now() + lapseMs), config: {}, devices: {} });

  async function read(): Promise<Seen | null> {
    const answer = await client.rawRequest('GET', path);
    if (answer.status === 404) return null;
    const envelope = JSON.parse(answer.body.toString('utf8')) as {
      error?: string;
      metadata?: { description?: string };
    };
    if (answer.status >= 400) throw new LxdError(answer.status, `GET ${path}: ${envelope.error}`);
    return seenFrom(envelope.metadata?.description ?? '', String(answer.headers.etag ?? ''));
  }

  /** Writes our hold over the one read, unless the turn changed since: whether it was written. */
  async function overwrite(seen: Seen): Promise<boolean> {
    const answer = await client.rawRequest('PUT', path, { body: body(), headers: { 'If-Match': seen.etag } });
    if (answer.status === 412 || answer.status === 404) return false;
    if (answer.status >= 400) throw new LxdError(answer.status, `PUT ${path}: ${answer.body.toString('utf8')}`);
    return true;
  }

  async function take(): Promise<void> {
    for (;;) {
      try {
        await client.call('POST', '/1.0/profiles', { body: { name, ...body() } });
        return;
      } catch (error) {
        // LXD 5.0 answers a taken name with a 500 "The profile already exists".
        if (!(error instanceof LxdError && /already exists/i.test(error.message))) throw error;
      }
      const seen = await read();
      if (seen && seen.until < Date.now() && (await overwrite(seen))) return;
      await delay(pollMs);
    }
  }

  /** Pushes the hold on while it is still ours. */
  async function extend(): Promise<void> {
    const seen = await read();
    if (seen?.holder === holder) await overwrite(seen);
  }

  async function give(): Promise<void> {
    const seen = await read();
    if (seen?.holder === holder) await client.call('DELETE', path).catch(() => {});
  }

  return async <T>(work: () => Promise<T>): Promise<T> => {
    await take();
    const timer = setInterval(() => void extend().catch(() => {}), lapseMs / 3);
    timer.unref();
    try {
      return await work();
    } finally {
      clearInterval(timer);
      await give().catch(() => {});
    }
  };
}
