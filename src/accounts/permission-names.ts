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
