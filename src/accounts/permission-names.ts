// The permission names and an account's effective permission set. Apart from the gates in
// permissions.ts so that the platform context can name the type without an import cycle.

export const permissionNames = [
  'servers',
  'snapshots',
  'backups',
  'floating_ips',
  'vpcs',
  'ssh_keys',
  'tokens',
] as const;
export type PermissionName = (typeof permissionNames)[number];
export type Permissions = Record<PermissionName, boolean>;

// Accounts share a handful of stored sets (most store none): each distinct text is read once.
// The sets are frozen, being shared by every account (and request) that stores the same text.
const setsByStored = new Map<string | null, Readonly<Permissions>>();
const maxSetsKept = 1_000;

/** The account's permissions: every name granted unless its stored overrides say false. */
export function effectivePermissions(stored: string | null): Readonly<Permissions> {
  let set = setsByStored.get(stored);
  if (!set) {
    set = Object.freeze(permissionsOf(stored));
    if (setsByStored.size >= maxSetsKept) setsByStored.clear();
    setsByStored.set(stored, set);
  }
  return set;
}

function permissionsOf(stored: string | null): Permissions {
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
