// What the operator may do to servers across every account: list them (by account, state or
// region), pull the plug (force stop, whatever the server is doing) and remove one. The owner's
// rules (permissions, busy transitions) do not apply: this is the operator's override.

import { type Condition, isLost, parseConditions } from '../compute/machine-conditions.ts';
import type { Platform } from '../platform/context.ts';
import { NotFound } from '../platform/errors.ts';
import { parseRef } from '../platform/ids.ts';
import { findAccount } from '../accounts/operator.service.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import type { Tx } from '../db/database.ts';
import { shownPower } from '../compute/power-state.ts';
import { removeServerRow } from './server.service.ts';
import { kickPtrPublishing } from '../reverse-dns/reverse-dns.service.ts';
import type { ServerRow } from './server.table.ts';
import { changes, recordIntent } from '../compute/machine-intents.ts';
import { serverPowerChanged } from '../events/resource-events.ts';
import { transaction } from '../db/transaction.ts';
import { serverOperatorRepository } from './server-operator.repository.ts';

/**
 * A server as the operator sees it: who owns it, where it runs, what it is doing (times in
 * clock ms; the operator API shapes it for the wire).
 */
export interface OperatorServer {
  id: number;
  uuid: string;
  accountId: number;
  accountEmail: string;
  name: string;
  hostname: string;
  /** The shown power: the settled power, or the transition under way. */
  power: string;
  rescue: boolean;
  regionId: number;
  /** The region's city. */
  region: string;
  image: string;
  plan: string;
  createdAt: number;
  /** Why the compute engine last failed this server (real driver), or null. */
  engineError: string | null;
  /** The machine the engine made is gone (MachinePresent false, InstanceMissing or HostLost): only an action recovers it. */
  lost: boolean;
  /** The host its machine runs on, as the engine last reported it (null until it has). */
  host: string | null;
  conditions: Condition[];
}

export interface OperatorServerQuery {
  /** The owner: id, uuid or e-mail. */
  account?: string;
  /** The shown power: running, stopped, or a transition (provisioning, booting, …). */
  power?: string;
  region?: number;
  /** Only servers with a larger id (paging forwards). */
  after?: number;
  limit?: number;
}

export type ServerWithOwner = ServerRow & { account_email: string };

export function toOperatorServer(ctx: Platform, row: ServerWithOwner, now: number): OperatorServer {
  const conditions = parseConditions(row.conditions);
  return {
    id: row.id,
    uuid: row.uuid,
    accountId: row.account_id,
    accountEmail: row.account_email,
    name: row.name,
    hostname: row.hostname,
    power: shownPower(row, now),
    rescue: row.rescue === 1,
    regionId: row.region_id,
    region: ctx.catalog.regions.get(row.region_id)?.city ?? String(row.region_id),
    image: ctx.catalog.images.get(row.image_id)?.name ?? String(row.image_id),
    plan: ctx.catalog.plans.get(row.plan_id)?.name ?? String(row.plan_id),
    createdAt: row.created_at,
    engineError: row.engine_error,
    lost: isLost(conditions),
    host: row.host,
    conditions,
  };
}

/** Servers of every account by id, `limit` (default 100, at most 1000) at a time. */
export async function listAllServers(ctx: Platform, query: OperatorServerQuery = {}): Promise<OperatorServer[]> {
  const now = ctx.clock.now();
  const rows = await serverOperatorRepository.list(ctx.db, {
    accountId: query.account === undefined ? undefined : (await findAccount(ctx, query.account)).id,
    region: query.region,
    after: query.after,
    power: query.power,
    now,
    limit: Math.min(query.limit ?? 100, 1000),
  });
  return rows.map((row) => toOperatorServer(ctx, row, now));
}

async function findAnyServer(ctx: Platform, trx: Tx, ref: string, lock = true): Promise<ServerWithOwner> {
  const parsed = parseRef(ref);
  if (!parsed) throw new NotFound('server');
  const row = await serverOperatorRepository.find(trx, parsed, lock ? ctx.dialect : undefined);
  if (!row) throw new NotFound('server');
  return row;
}

/**
 * Any account's server, locked for a change: its owner is found without a lock, then the account
 * and the server are locked in the order every owner's change takes them (404 if it changed hands).
 */
export async function lockAnyServer(ctx: Platform, trx: Tx, ref: string): Promise<ServerWithOwner> {
  const owner = await findAnyServer(ctx, trx, ref, false);
  await lockAccount(ctx, trx, owner.account_id);
  const server = await findAnyServer(ctx, trx, ref);
  if (server.account_id !== owner.account_id) throw new NotFound('server');
  return server;
}

export async function operatorServerInfo(ctx: Platform, ref: string): Promise<OperatorServer> {
  return transaction(ctx, async (trx) => toOperatorServer(ctx, await findAnyServer(ctx, trx, ref), ctx.clock.now()));
}

/**
 * Pulls the plug: the machine is stopped and the server is stopped at once, whatever it was
 * doing (provisioning, booting, a rebuild…). A server already stopped and idle stays as it is.
 */
export async function forceStopServer(ctx: Platform, ref: string): Promise<OperatorServer> {
  return transaction(ctx, async (trx) => {
    const server = await lockAnyServer(ctx, trx, ref);
    const now = ctx.clock.now();
    if (shownPower(server, now) === 'stopped') return toOperatorServer(ctx, server, now);
    const stopped = await recordIntent(ctx, trx, changes.powerOff(server));
    await serverPowerChanged(ctx, trx, stopped, 'stopped', 'the operator stopped it', 'operator');
    return toOperatorServer(ctx, { ...stopped, account_email: server.account_email }, now);
  });
}

/** Removes any account's server as its owner's remove would: billing stops, addresses go back. */
export async function operatorRemoveServer(ctx: Platform, ref: string): Promise<void> {
  await transaction(ctx, async (trx) => {
    const server = await lockAnyServer(ctx, trx, ref);
    await removeServerRow(ctx, trx, server, 'operator');
  });
  kickPtrPublishing(ctx);
}
