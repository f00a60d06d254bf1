// `nubis backup <file>`: a copy of Nubis's own SQLite database, consistent while a server serves
// and writes. SQLite's online backup through a second, read-only connection: all pages in one
// step, so the copy is one read transaction's snapshot (in WAL mode the server keeps writing
// meanwhile); page by page, every write of the server between two steps would restart it. It is
// written beside the target and renamed into place, so a failed backup never leaves half a file.
// PostgreSQL is backed up with its own tools (docs/operating.md): this refuses and says so.

import { backup, DatabaseSync } from 'node:sqlite';
import { existsSync, renameSync, rmSync } from 'node:fs';
import type { Config } from '../config.ts';
import { ConfigError } from '../config.ts';
import { inMemory, sqliteFileOf } from './connect.ts';
import { privateFile } from '../platform/private-files.ts';

export interface BackupResult {
  file: string;
  pages: number;
}

/** Copies the database of `config` into `target` (replacing it); refuses for PostgreSQL and an in-memory database. */
export async function backupDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  target: string,
): Promise<BackupResult> {
  if (config.databaseUrl)
    throw new ConfigError(
      'nubis backup copies the SQLite database only: with DATABASE_URL use PostgreSQL\'s own tools (pg_dump -Fc, or a base backup with WAL archiving), as docs/operating.md ("Backup and restore") describes',
    );
  if (config.dataDir === inMemory) throw new ConfigError('DATA_DIR=:memory: keeps nothing to back up');
  const source = sqliteFileOf(config.dataDir);
  if (!existsSync(source)) throw new ConfigError(`no database at ${source}: is DATA_DIR right?`);
  const partial = `${target}.partial`;
  rmSync(partial, { force: true });
  // Private from the first byte: it holds what the database holds.
  privateFile(partial);
  const db = new DatabaseSync(source, { readOnly: true });
  try {
    // A busy server holds the write lock for short moments: wait for them rather than fail.
    db.exec('PRAGMA busy_timeout = 10000');
    const pages = await backup(db, partial, { rate: 2 ** 31 - 1 });
    renameSync(partial, target);
    return { file: target, pages };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    db.close();
  }
}
