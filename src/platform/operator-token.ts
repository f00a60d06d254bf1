// The operator's first credential. A server-mode instance started by `nubis serve` with no
// ADMIN_TOKEN on an empty database makes one, once, into DATA_DIR/admin-token (0600), as Grafana
// and GitLab make their first admin password: the operator reads it there and can let the first
// customers in. Later starts read the same file; ADMIN_TOKEN, when set, always wins.

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface OperatorTokenFile {
  token: string;
  /** The file's absolute path. */
  file: string;
  /** True when this start made it. */
  created: boolean;
}

export const operatorTokenFileName = 'admin-token';

/**
 * The token of DATA_DIR/admin-token: read when the file exists, made when it does not and
 * `databaseIsEmpty` (a database with accounts already has an operator, or had one: making a
 * credential for it at a restart would hand the operator API to whoever reads the folder).
 */
export function firstRunOperatorToken(dataDir: string, databaseIsEmpty: boolean): OperatorTokenFile | null {
  const file = resolve(join(dataDir, operatorTokenFileName));
  if (existsSync(file)) {
    chmodSync(file, 0o600);
    return { token: readFileSync(file, 'utf8').trim(), file, created: false };
  }
  if (!databaseIsEmpty) return null;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString('hex');
  // 'wx': two instances starting at once on one folder must not each write their own.
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, file, created: true };
}
