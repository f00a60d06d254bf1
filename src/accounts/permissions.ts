// Account permissions: which kinds of resource an account may create. The spec leaves the
// shape open; ours is an object of booleans, every one true unless the operator turns it off.
// A blocked account may still read; a not activated one may read and manage its own tokens
// and profile, but not create anything (every other permission names a resource that is
// billed or only serves billed ones, such as SSH keys for server create).

import { Forbidden } from '../platform/errors.ts';
import type { Actor } from '../platform/context.ts';

export { effectivePermissions, permissionNames, type PermissionName, type Permissions } from './permission-names.ts';
import type { PermissionName } from './permission-names.ts';

/** Permissions an account holds before activation: managing its own tokens. */
const withoutActivation: ReadonlySet<PermissionName> = new Set(['tokens']);

/**
 * The gate in front of every billable or state-changing operation: an account must be
 * activated (unless the permission needs no activation), not blocked, and hold the permission.
 * Reads need none of these.
 */
export function requirePermission(actor: Actor, permission: PermissionName): void {
  requireNotBlocked(actor);
  if (!withoutActivation.has(permission)) requireActivated(actor);
  if (!actor.permissions[permission]) throw new Forbidden(`the account lacks the ${permission} permission`);
}

/** Activation first: an account never activated may read, but neither create nor pay. */
export function requireActivated(actor: Actor): void {
  if (!actor.activated)
    throw new Forbidden(
      'the account is not activated: use the activation uuid from the activation mail first (PUT /v1.3/account/activate)',
    );
}

/** The gate in front of changes to the account itself (profile, e-mail, password). */
export function requireNotBlocked(actor: Actor): void {
  if (actor.blocked) throw new Forbidden('the account is blocked; contact support');
}
