// Child processes a test runs to their end (the CLI, a README's shell block): what they wrote and
// how they ended, collected in one place.

import type { ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Collects `child`'s stdout and stderr until it ends: on `exit` by default, or on `close` to be
 * sure every byte of its output was read (a child whose own children may keep the pipes open
 * waits on `exit`).
 */
export async function finished(
  child: ChildProcessByStdio<Writable | null, Readable, Readable>,
  until: 'exit' | 'close' = 'exit',
): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = (await once(child, until)) as [number | null];
  return { code, stdout, stderr };
}

/** The environment of a spawned process: the test's own, without what Nubis reads; `extra` over it. */
export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (
      value !== undefined &&
      !key.startsWith('TEST_') &&
      !/^(PORT|HOST|DATA_DIR|DATABASE_URL|REDIS_URL|ADMIN_TOKEN|CLOCK|LOG_LEVEL|NUBIS_.*|AUTO_ACTIVATE|SECRET_KEY|METRICS_.*|RATE_.*)$/.test(
        key,
      )
    )
      env[key] = value;
  return { ...env, ...extra };
}
