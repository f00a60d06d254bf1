// SSH public keys of an account: list, create (parsed and fingerprinted), rename, remove.
// Servers refer to a key at create time (servers.ssh_key_id); removing the key unsets it there.

import type { Actor, Platform } from '../platform/context.ts';
import { Conflict, Invalid, NotFound } from '../platform/errors.ts';
import { parseRef } from '../platform/ids.ts';
import { requirePermission } from '../accounts/permissions.ts';
import { parsePublicKey } from './public-key.ts';
import { sshKeyRepository } from './ssh-key.repository.ts';
import type { SshKeyRow } from './ssh-key.table.ts';

/** A stored public key, as the domain sees it (the API layer shapes it for the wire). */
export interface SshKey {
  id: number;
  uuid: string;
  name: string;
  /** The OpenSSH public key line. */
  publicKey: string;
  fingerprint: string;
  /** Clock ms. */
  createdAt: number;
}

export function rowToSshKey(row: SshKeyRow): SshKey {
  return {
    id: row.id,
    uuid: row.uuid,
    name: row.name,
    publicKey: row.public_key,
    fingerprint: row.fingerprint,
    createdAt: row.created_at,
  };
}

export async function listSshKeys(ctx: Platform, actor: Actor): Promise<SshKey[]> {
  return (await sshKeyRepository.listByAccount(ctx.db, actor.accountId)).map(rowToSshKey);
}

export async function createSshKey(
  ctx: Platform,
  actor: Actor,
  input: { name: string; publicKey: string },
): Promise<SshKey> {
  requirePermission(actor, 'ssh_keys');
  const key = await parsePublicKey(input.publicKey);
  const row = await sshKeyRepository.insertUnlessDuplicate(ctx.db, {
    uuid: ctx.random.uuid(),
    accountId: actor.accountId,
    name: input.name,
    publicKey: key.text,
    keyType: key.type,
    fingerprint: key.fingerprint,
    createdAt: ctx.clock.now(),
  });
  if (!row) {
    const found = await sshKeyRepository.findByFingerprint(ctx.db, actor.accountId, key.fingerprint);
    const existing = found && rowToSshKey(found);
    throw new Conflict(
      `this key (${key.fingerprint}) is already stored in the account${existing ? ` as "${existing.name}" (${existing.uuid})` : ''}`,
    );
  }
  return rowToSshKey(row);
}

async function findOwnedKey(ctx: Platform, actor: Actor, ref: string | number): Promise<SshKey> {
  const parsed = parseRef(ref);
  const row = parsed ? await sshKeyRepository.findOwned(ctx.db, actor.accountId, parsed) : undefined;
  if (!row) throw new NotFound('SSH key');
  return rowToSshKey(row);
}

/**
 * Renames the key named by uuid or id (the spec allows either). When both are given they
 * must name the same key. No permission check: the spec declares no 403 for rename.
 */
export async function renameSshKey(
  ctx: Platform,
  actor: Actor,
  input: { uuid?: string | number; id?: string | number; name: string },
): Promise<void> {
  const first = input.uuid ?? input.id;
  if (first === undefined) throw new Invalid('uuid', "missing required field: give the key's uuid (or its id)");
  const key = await findOwnedKey(ctx, actor, first);
  if (input.uuid !== undefined && input.id !== undefined) {
    const other = parseRef(input.id);
    const same = other !== null && ('id' in other ? other.id === key.id : other.uuid === key.uuid);
    if (!same) throw new NotFound('SSH key');
  }
  await sshKeyRepository.rename(ctx.db, key.id, input.name);
}

export async function removeSshKey(ctx: Platform, actor: Actor, ref: string | number): Promise<void> {
  requirePermission(actor, 'ssh_keys');
  const key = await findOwnedKey(ctx, actor, ref);
  // Of several concurrent removes exactly one deletes the row; the others find it gone: 404.
  if (!(await sshKeyRepository.remove(ctx.db, key.id))) throw new NotFound('SSH key');
}
