// The context every service receives: storage, clock, configuration, secrets, catalog and
// the pluggable drivers. Services never see Fastify; routes pass this in.

import type { Config } from '../config.ts';
import type { Db, DialectName } from '../db/database.ts';
import type { Catalog } from '../catalog/catalog.types.ts';
import type { Clock } from './clock.ts';
import type { Secrets } from './secrets.ts';
import type { RandomSource } from './random.ts';
import type { MailTransport } from '../mail/mail.transport.ts';
import type { ReverseDnsServer } from '../reverse-dns/reverse-dns-server.ts';
import type { Permissions } from '../accounts/permission-names.ts';
import type { ComputeDriver } from '../compute/compute-driver.ts';
import type { Metrics } from './metrics.ts';

export interface Logger {
  info(obj: object | string, message?: string): void;
  warn(obj: object | string, message?: string): void;
  error(obj: object | string, message?: string): void;
}

export interface Platform {
  config: Config;
  db: Db;
  dialect: DialectName;
  clock: Clock;
  secrets: Secrets;
  /** Every made-up value (uuids, tokens, passwords, addresses…): cryptographic, or seeded (NUBIS_SEED). */
  random: RandomSource;
  catalog: Catalog;
  mailTransport: MailTransport | null;
  /** Where PTR records are published (PDNS_API_URL); null: reverse names are stored and shown only. */
  reverseDns: ReverseDnsServer | null;
  /** Runs the machines behind servers (COMPUTE_DRIVER). */
  compute: ComputeDriver;
  /** Actors of recently presented tokens (tokens/actor-cache.ts). */
  actors: Actors;
  log: Logger;
  /** The process's metrics (prom-client), scraped at /metrics. */
  metrics: Metrics;
}

/** The account a request acts for, as authentication found it. */
export interface Actor {
  accountId: number;
  accountUuid: string;
  tokenId: number;
  activated: boolean;
  blocked: boolean;
  permissions: Readonly<Permissions>;
  /** Emulator: the id of an operator's fault rule that makes this request's compute action fail. */
  computeFault?: number;
}

/** A cached actor and what it was checked against (tokens/actor-cache.ts). */
export interface CachedActor {
  actor: Actor;
  /** The account's generation, read before the actor was read from the database. */
  generation: string;
  /** Wall-clock ms when it was cached (entries live at most a second). */
  cachedAt: number;
  /** last_used_at as stored (written at most once a minute). */
  lastUsedAt: number | null;
}

/** The actor cache as services use it; implemented by ActorCache in tokens/actor-cache.ts. */
export interface Actors {
  peek(digest: string, now: number): CachedActor | undefined;
  generation(accountId: number): Promise<string | null> | string | null;
  store(digest: string, entry: CachedActor): void;
  /** The database look-up of the digest now under way on this instance (while caching), or undefined. */
  lookingUp(digest: string): Promise<unknown> | undefined;
  /** Registers a look-up of the digest, so concurrent requests of the token wait for it (when caching). */
  lookUp<T>(digest: string, running: Promise<T>): Promise<T>;
  forget(digest: string): void;
  bump(accountId: number): Promise<void>;
  bumpAll(): Promise<void>;
  /** Empties the cache (Redis came back: the generations it held may be lost). */
  clear(): void;
}
