// Server mode's first run, as the README tells it: `nubis serve` with no ADMIN_TOKEN on an empty
// database makes the operator's token once, into DATA_DIR/admin-token (0600), and says where; the
// README's block takes a new customer from there to a running server; a restart reads the same
// file and makes no other, and a database with accounts never gets a token it did not have.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testStorageEnv } from './support/instance.ts';
import { cleanEnv, finished } from './support/processes.ts';

const root = new URL('..', import.meta.url).pathname;

function firstRunBlock(): string {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const match = /<!-- first-run[^>]*-->\n```sh\n([\s\S]*?)```/.exec(readme);
  assert.ok(match, 'the README has a first-run block');
  return match[1]!;
}

interface Served {
  url: string;
  stderr(): string;
  /** Resolves once the output holds `text` (lines logged after the listening line come a moment later). */
  said(text: string): Promise<void>;
  stop(): Promise<void>;
}

/** `nubis serve` (what `npm start` runs), until it listens. */
async function serve(env: Record<string, string>): Promise<Served> {
  const child = spawn(process.execPath, [join(root, 'bin/nubis.ts'), 'serve'], {
    env: cleanEnv({ ...env, PORT: '0' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The log (stdout) and anything else it prints, together: what the person at the terminal sees.
  let stderr = '';
  const waiters = new Set<() => void>();
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      stderr += chunk;
      for (const waiter of waiters) waiter();
      const listening = /"msg":"Server listening at (http:\/\/[^"]+)"/.exec(stderr);
      if (listening) resolve(listening[1]!);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', () => reject(new Error(`nubis serve exited: ${stderr}`)));
  });
  return {
    url,
    stderr: () => stderr,
    said: (text) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`not said within 15 s: ${text}\n${stderr}`));
        }, 15_000);
        function check() {
          if (!stderr.includes(text)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        }
        waiters.add(check);
        check();
      }),
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

async function adminStatus(url: string, token: string): Promise<number> {
  return (await fetch(`${url}/admin/accounts`, { headers: { authorization: `Bearer ${token}` } })).status;
}

let storage: Awaited<ReturnType<typeof testStorageEnv>>;
let folder: string;
before(async () => {
  storage = await testStorageEnv();
  folder = mkdtempSync(join(tmpdir(), 'nubis-first-run-'));
});
after(async () => {
  await storage.cleanup();
  rmSync(folder, { recursive: true, force: true });
});

describe('server mode, first run', () => {
  test('makes the operator token once, in a file of its own, and the README gets a customer to a running server', async () => {
    const dataDir = join(folder, 'data');
    const env = { ...storage.env, DATA_DIR: dataDir, SIM_PROVISION_SECONDS: '1' };
    const file = join(dataDir, 'admin-token');
    const first = await serve(env);
    let token: string;
    try {
      // Logged just after the listening line: waited for, not assumed there already.
      await first.said(`operator token written to ${file} (readable only by this user)`);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      token = readFileSync(file, 'utf8').trim();
      assert.match(token, /^[0-9a-f]{64}$/);
      assert.equal(await adminStatus(first.url, token), 200);
      assert.equal(await adminStatus(first.url, 'not-the-operator-token'), 401);

      const port = new URL(first.url).port;
      const block = spawn('bash', ['-e', '-c', firstRunBlock()], {
        cwd: folder,
        env: cleanEnv({ PORT: port }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const { code, stdout, stderr } = await finished(block);
      assert.equal(code, 0, stderr);
      assert.match(stdout, /^server \d+ is running$/m);
    } finally {
      await first.stop();
    }

    const second = await serve(env);
    try {
      assert.ok(!second.stderr().includes('operator token written'), second.stderr());
      assert.equal(readFileSync(file, 'utf8').trim(), token);
      assert.equal(await adminStatus(second.url, token), 200);
    } finally {
      await second.stop();
    }

    // The database has accounts now: without the file, no new token is made, and the operator API stays off.
    unlinkSync(file);
    const third = await serve(env);
    try {
      assert.equal(existsSync(file), false);
      assert.equal(await adminStatus(third.url, token), 403);
    } finally {
      await third.stop();
    }
  });

  test('ADMIN_TOKEN set: no file is made, and the variable is the token', async () => {
    const dataDir = join(folder, 'with-token');
    const fresh = await testStorageEnv();
    const served = await serve({ ...fresh.env, DATA_DIR: dataDir, ADMIN_TOKEN: 'an-operator-token-of-mine' });
    try {
      assert.equal(existsSync(join(dataDir, 'admin-token')), false);
      assert.equal(await adminStatus(served.url, 'an-operator-token-of-mine'), 200);
    } finally {
      await served.stop();
      await fresh.cleanup();
    }
  });
});
