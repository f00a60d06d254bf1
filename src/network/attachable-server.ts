// The server a floating IP or a VPC is attached to or detached from: always one of the
// caller's own (another account's server is a 404 like a missing one), and the change of its
// attachments, made in the lock order.

import type { Tx } from '../db/database.ts';
import { transaction } from '../db/transaction.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { changes, recordIntent } from '../compute/machine-intents.ts';
import type { Actor, Platform } from '../platform/context.ts';
import { NotFound } from '../platform/errors.ts';
import { parseRef } from '../platform/ids.ts';
import { serverRepository } from '../servers/server.repository.ts';

export interface AttachableServer {
  id: number;
  uuid: string;
  region_id: number;
  ipv6_enabled: number;
  hostname: string;
}

/**
 * Reads the server inside the caller's transaction. On PostgreSQL it takes a key-share lock,
 * so the server cannot be deleted between this read and the attachment that refers to it.
 */
export async function findAttachableServer(
  ctx: Platform,
  trx: Tx,
  accountId: number,
  ref: string | number,
): Promise<AttachableServer> {
  const parsed = parseRef(ref);
  if (!parsed) throw new NotFound('server');
  const server = await serverRepository.findAttachable(trx, ctx.dialect, accountId, parsed);
  if (!server) throw new NotFound('server');
  return server;
}

/**
 * Attaches something of the caller's (a floating IP, a VPC) to one of its servers or detaches it,
 * in the lock order (docs/architecture.md): the account, then `find` reads the thing, then the
 * server, then `change` writes the attachment and answers whether anything changed. When it did,
 * the server's machine is given its new network.
 */
export async function changeAttachment<T>(
  ctx: Platform,
  actor: Actor,
  serverRef: string | number,
  find: (trx: Tx) => Promise<T>,
  change: (trx: Tx, attached: T, server: AttachableServer) => Promise<boolean>,
): Promise<void> {
  await transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    const attached = await find(trx);
    const server = await findAttachableServer(ctx, trx, actor.accountId, serverRef);
    if (await change(trx, attached, server)) await recordIntent(ctx, trx, changes.network(server));
  });
}
