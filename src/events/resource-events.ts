// The events of each resource's life, named once: what the services record when a server,
// snapshot, invoice item or account changes. A transition's end is scheduled for the time the
// clock brings it (the simulated driver's timings); with a real engine it is recorded when the
// engine reports, in place of the scheduled one.

import type { Queryable, Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import type { ServerRow } from '../servers/server.table.ts';
import {
  recordCreation,
  recordEvent,
  recordEvents,
  scheduleEvent,
  type EventCause,
  type EventInput,
} from './event.service.ts';
import { transaction } from '../db/transaction.ts';
import { eventRepository } from './event.repository.ts';

/** An event of the server's life: its account, the server as the resource, what happened. */
function serverEvent(server: ServerRow, type: string, cause: EventCause, data?: Record<string, unknown>): EventInput {
  return { accountId: server.account_id, resource: { type: 'server', uuid: server.uuid }, type, data, cause };
}

/** An event of a snapshot's or backup's life. */
function imageEvent(
  image: { uuid: string; account_id: number; type: string },
  type: string,
  cause: EventCause,
  data?: Record<string, unknown>,
): EventInput {
  return { accountId: image.account_id, resource: { type: image.type, uuid: image.uuid }, type, data, cause };
}

/** What the server's power became, and the engine's error if it left one. */
function powerData(server: ServerRow, after: string): Record<string, unknown> {
  return { power: server.power, after, ...(server.engine_error ? { error: server.engine_error } : {}) };
}

/**
 * A server appears, provisioning, and its billing starts; it reaches its power when provisioning
 * ends. One insert records them all, with nothing to settle: the server was made in this
 * transaction.
 */
export async function serverCreated(ctx: Platform, trx: Tx, server: ServerRow, billed: OpenedItem[]): Promise<void> {
  const settles = serverSettlement(server);
  // Ended already (a transition of no time): told in its place, before billing starts.
  const endedAlready = settles !== null && settles.dueAt <= ctx.clock.now();
  await recordCreation(
    ctx,
    trx,
    [
      serverEvent(server, 'server.created', 'customer', {
        name: server.name,
        hostname: server.hostname,
        region: server.region_id,
        plan: server.plan_id,
      }),
      ...(endedAlready ? [settles.event] : []),
      ...openedEvents(server.account_id, server.uuid, billed),
    ],
    settles && !endedAlready ? [settles] : [],
  );
}

/** A server starts a transition (replacing the one under way), and settles when it ends. */
export async function serverTransition(
  ctx: Platform,
  trx: Tx,
  server: ServerRow,
  cause: EventCause = 'customer',
): Promise<void> {
  await recordEvent(
    ctx,
    trx,
    serverEvent(server, 'server.transition', cause, { transition: server.action, settles: server.power }),
    { supersede: true },
  );
  const settles = serverSettlement(server);
  if (settles) await scheduleEvent(ctx, trx, settles.event, settles.dueAt);
}

/** The end of the server's transition under way, and when it is due; null when none is. */
function serverSettlement(server: ServerRow): { event: EventInput; dueAt: number } | null {
  if (server.action === null || server.action_until === null) return null;
  return {
    event: serverEvent(server, 'server.power', 'engine', powerData(server, server.action)),
    dueAt: server.action_until,
  };
}

/**
 * A real engine ended the server's transition now (the compute job settled it): the end is
 * recorded now, as the engine left the server, in place of the one scheduled at the driver's
 * upper bound with the power that was asked for.
 */
export async function serverSettledByEngine(
  ctx: Platform,
  trx: Tx,
  server: ServerRow,
  after: string,
  forced = false,
): Promise<void> {
  const data = powerData(server, after);
  // The guest did not shut down cleanly in time: the customer learns its processes were killed.
  if (forced) data.forced = 'the guest did not stop cleanly in time; it was stopped by force';
  await recordEvent(ctx, trx, serverEvent(server, 'server.power', 'engine', data), {
    replaces: 'server.power',
  });
}

/** The engine no longer has the machine it made for the server: lost, and not made again on its own. */
export async function serverLost(ctx: Platform, trx: Tx, server: ServerRow, reason: string): Promise<void> {
  await recordEvent(
    ctx,
    trx,
    serverEvent(server, 'server.lost', 'engine', {
      reason,
      recovery: 'restore a backup or snapshot, rebuild, reinstall, or remove the server',
    }),
  );
}

/** The engine reports the server's machine on another host than before (an evacuation, a move). */
export async function serverMoved(ctx: Platform, trx: Tx, server: ServerRow, from: string, to: string): Promise<void> {
  await recordEvent(ctx, trx, serverEvent(server, 'server.moved', 'engine', { from, to }));
}

/** The operator recovered a lost server's machine on another host from one of its images. */
export async function serverRecovered(
  ctx: Platform,
  trx: Tx,
  server: ServerRow,
  data: { image: string; avoided: string | null },
): Promise<void> {
  await recordEvent(ctx, trx, serverEvent(server, 'server.recovered', 'operator', data));
}

/** A server powered off at once by a sweep, outside any transition (out of funds). */
export function serverPoweredOff(ctx: Platform, trx: Tx, server: ServerRow, reason: string): Promise<void> {
  return serverPowerChanged(ctx, trx, server, 'stopped', reason, 'sweep');
}

/**
 * A server's power changed at once, outside any transition: out of funds, as a real engine
 * reported, or the operator pulled the plug.
 */
export async function serverPowerChanged(
  ctx: Platform,
  trx: Tx,
  server: ServerRow,
  power: 'running' | 'stopped',
  reason: string,
  cause: EventCause = 'engine',
): Promise<void> {
  await recordEvent(ctx, trx, serverEvent(server, 'server.power', cause, { power, reason }), { supersede: true });
}

/** Reconciliation found the machine's configuration changed outside Nubis and puts it back as the server says. */
export async function serverDriftCorrected(ctx: Platform, trx: Tx, server: ServerRow, drift: string[]): Promise<void> {
  await recordEvent(
    ctx,
    trx,
    serverEvent(server, 'server.drift', 'engine', {
      corrected: drift,
      reason: 'changed outside Nubis; put back as the server says',
    }),
  );
}

export async function serverRemoved(
  ctx: Platform,
  trx: Tx,
  server: ServerRow,
  cause: EventCause = 'customer',
): Promise<void> {
  await recordEvent(ctx, trx, serverEvent(server, 'server.removed', cause), { supersede: true });
}

/** A snapshot (or backup) is taken, made in this transaction; it completes when its image is written. */
export async function imageTaken(
  ctx: Platform,
  trx: Tx,
  image: { uuid: string; account_id: number; type: string; name: string; server_uuid: string | null; ready_at: number },
  cause: EventCause = 'customer',
): Promise<void> {
  if (image.server_uuid !== null) await eventRepository.noteImage(trx, image.uuid, image.server_uuid);
  const completed = imageEvent(image, `${image.type}.completed`, 'engine');
  const completedAlready = image.ready_at <= ctx.clock.now();
  await recordCreation(
    ctx,
    trx,
    [
      imageEvent(image, `${image.type}.created`, cause, { name: image.name, server: image.server_uuid }),
      ...(completedAlready ? [completed] : []),
    ],
    completedAlready ? [] : [{ event: completed, dueAt: image.ready_at }],
  );
}

/** A real engine finished a snapshot's or backup's copy now: it completes now, not at the estimate. */
export async function imageCompletedByEngine(
  ctx: Platform,
  trx: Tx,
  image: { uuid: string; account_id: number; type: string },
): Promise<void> {
  const type = `${image.type}.completed`;
  await recordEvent(ctx, trx, imageEvent(image, type, 'engine'), { replaces: type });
}

export async function imageRemoved(
  ctx: Platform,
  trx: Tx,
  image: { uuid: string; account_id: number; type: string },
  cause: EventCause = 'customer',
): Promise<void> {
  await recordEvent(ctx, trx, imageEvent(image, `${image.type}.removed`, cause), { supersede: true });
}

/** An invoice item as its opening event tells it. */
export interface OpenedItem {
  resourceType: string;
  description: string;
  amountHrMicros: number;
  amountMoMicros: number;
}

function openedEvents(accountId: number, resourceUuid: string, items: OpenedItem[]): EventInput[] {
  return items.map((item) => ({
    accountId,
    resource: { type: item.resourceType, uuid: resourceUuid },
    type: 'invoice_item.opened',
    data: {
      description: item.description,
      amount_hr: item.amountHrMicros / 1_000_000,
      amount_mo: item.amountMoMicros / 1_000_000,
    },
  }));
}

/** Billing of a resource starts (one event per invoice item). */
export async function invoiceItemsOpened(
  ctx: Platform,
  db: Queryable,
  accountId: number,
  resourceUuid: string,
  items: OpenedItem[],
): Promise<void> {
  await inTransaction(ctx, db, (trx) => recordEvents(ctx, trx, openedEvents(accountId, resourceUuid, items)));
}

/** Billing of a resource stops with each item's final charge. */
export async function invoiceItemClosed(
  ctx: Platform,
  trx: Tx,
  item: { account_id: number; resource_type: string; resource_uuid: string; description: string },
  chargeMicros: number,
): Promise<void> {
  await recordEvent(ctx, trx, {
    accountId: item.account_id,
    resource: { type: item.resource_type, uuid: item.resource_uuid },
    type: 'invoice_item.closed',
    data: { description: item.description, charge: chargeMicros / 1_000_000 },
  });
}

export async function accountFunds(ctx: Platform, trx: Tx, accountId: number, outOfFunds: boolean): Promise<void> {
  await recordEvent(ctx, trx, {
    accountId,
    resource: { type: 'account', uuid: String(accountId) },
    type: outOfFunds ? 'account.out_of_funds' : 'account.funded',
  });
}

function inTransaction(ctx: Platform, db: Queryable, work: (trx: Tx) => Promise<void>): Promise<void> {
  return db.isTransaction ? work(db as Tx) : transaction(ctx, work);
}
