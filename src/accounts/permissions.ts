// Account permissions: which kinds of resource an account may create. The spec leaves the
// shape open; ours is an object of booleans, every one true unless the operator turns it off.

import { Forbidden } from '../platform/errors.ts';
import type { Actor } from '../platform/context.ts';

export const permissionNames = ['servers', 'snapshots', 'backups', 'floating_ips', 'vpcs', 'ssh_keys', 'tokens'] as const;
export type PermissionName = (typeof permissionNames)[number];
export type Permissions = Record<PermissionName, boolean>;

export function effectivePermissions(stored: string | null): Permissions {
  let overrides: Record<string, unknown> = {};
  try {
    overrides = stored ? (JSON.parse(stored) as Record<string, unknown>) : {};
  } catch {
    overrides = {};
  }
  const result = {} as Permissions;
  for (const name of permissionNames) result[name] = overrides[name] !== false;
  return result;
}

/**
 * The gate in front of every billable or state-changing operation: an account must be
 * activated, not blocked, and hold the permission. Reads need none of these.
 */
export function requirePermission(actor: Actor, permission: PermissionName): void {
  if (actor.blocked) throw new Forbidden('the account is blocked; contact support');
  if (!actor.activated) throw new Forbidden('the account is not activated: follow the link in the activation mail first');
  if (!actor.permissions[permission]) throw new Forbidden(`the account lacks the ${permission} permission`);
}
