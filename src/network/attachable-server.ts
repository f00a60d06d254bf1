// The server a floating IP or a VPC is attached to or detached from: always one of the
// caller's own (another account's server is a 404 like a missing one).

import type { Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { NotFound } from '../platform/errors.ts';
import { parseRef } from '../platform/ids.ts';
import { serverRepository } from '../servers/server.repository.ts';

export interface AttachableServer {
  id: number;
  uuid: string;
  region_id: number;
  ipv6_enabled: number;
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
