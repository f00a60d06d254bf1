// Files that hold what opens accounts (the SQLite database, the server key) are readable by
// their owner alone: the folder 0700, the files 0600, whatever the umask or an older version left.

import { chmodSync, closeSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Creates `dir` if needed and makes it and every file directly in it private (0700 / 0600). */
export function privateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true }))
    if (entry.isFile()) chmodSync(join(dir, entry.name), 0o600);
}

/** Creates `file` empty and private if it does not exist (so whatever opens it next keeps 0600). */
export function privateFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}
