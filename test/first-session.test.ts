// The README's first session, run as pasted (bash, curl, `npm run dev`), and the emulator
// preset it relies on: the seeded account and its printed token, automatic activation, the
// virtual clock, relaxed rate limits, one log line per request, the same token after a restart.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { testStorageEnv } from './support/instance.ts';

const root = new URL('..', import.meta.url).pathname;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** The environment of a spawned process: the test's own, without what Nubis reads. */
function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (
      value !== undefined &&
      !key.startsWith('TEST_') &&
      !/^(PORT|HOST|DATA_DIR|DATABASE_URL|REDIS_URL|ADMIN_TOKEN|CLOCK|LOG_LEVEL|NUBIS_MODE|AUTO_ACTIVATE|SECRET_KEY|METRICS_.*|RATE_.*)$/.test(
        key,
      )
    )
      env[key] = value;
  return { ...env, ...extra };
}

function firstSession(): string {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const match = /<!-- first-session[^>]*-->\n```sh\n([\s\S]*?)```/.exec(readme);
  assert.ok(match, 'the README has a first-session block');
  return match[1]!;
}

let storage: Awaited<ReturnType<typeof testStorageEnv>>;
before(async () => {
  storage = await testStorageEnv();
});
after(async () => {
  await storage.cleanup();
});

describe('first session', () => {
  test("the README's block runs as pasted and ends with the new account's info", async () => {
    const port = await freePort();
    const script = `${firstSession()}\nkill %1\nwait\n`;
    // Its own process group, so whatever it started goes when the test ends.
    const shell = spawn('bash', ['-c', script], {
      cwd: root,
      env: cleanEnv({ ...storage.env, PORT: String(port) }),
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    shell.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    shell.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => process.kill(-shell.pid!, 'SIGKILL'), 90_000);
    const [code] = await once(shell, 'exit');
    clearTimeout(timer);
    try {
      process.kill(-shell.pid!, 'SIGKILL');
    } catch {}
    assert.equal(code, 0, stderr);
    // The credit's transaction, then the account with it.
    // curl prints no newline after an answer: split answers that run together.
    const lines = stdout
      .replace(/\}\{"/g, '}\n{"')
      .split('\n')
      .filter((line) => line.startsWith('{"'));
    const info = lines.map((line) => JSON.parse(line)).findLast((entry) => entry.email !== undefined);
    assert.equal(info.email, 'me@example.com', stdout);
    assert.equal(info.activated, true);
    assert.equal(info.balance, 50);
    // The server's own log: one JSON line per request, nothing else on stdout but the answers and npm's banner.
    const requests = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request completed');
    assert.ok(requests.some((entry) => entry.path === '/v1.3/account/register' && entry.status === 201));
    assert.equal(requests.filter((entry) => entry.path === '/v1.3/account/info').length, 1);
    assert.ok(!lines.some((line) => line.includes('incoming request')));
    // The emulator's greeting, a log line like the others, names the seeded account and its token.
    const greeting = lines.map((line) => JSON.parse(line)).find((entry) => /^emulator ready/.test(entry.msg));
    assert.match(greeting?.account?.token ?? '', /^[0-9a-f]{64}$/, stdout);
  });
});

describe('emulator preset', () => {
  async function startDev(port: number): Promise<{ token: string; stop(): Promise<void> }> {
    const child = spawn(process.execPath, ['bin/nubis.ts', 'dev'], {
      cwd: root,
      env: cleanEnv({ ...storage.env, PORT: String(port) }),
    });
    let output = '';
    child.stderr.resume();
    const token = await new Promise<string>((resolve, reject) => {
      // The greeting: the log line that carries the seeded account's token.
      createInterface({ input: child.stdout }).on('line', (line) => {
        output += `${line}\n`;
        if (/^emulator ready/.test(String(JSON.parse(line).msg))) resolve(JSON.parse(line).account.token);
      });
      child.once('exit', () => reject(new Error(`nubis dev exited: ${output}`)));
    });
    return {
      token,
      async stop() {
        child.kill('SIGTERM');
        await once(child, 'exit');
      },
    };
  }

  test('seeds an account, activates at registration, moves its clock, relaxes limits; a restart keeps the token', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const first = await startDev(port);
    let token: string;
    try {
      token = first.token;
      const info = await (
        await fetch(`${url}/v1.3/account/info`, { headers: { authorization: `Bearer ${token}` } })
      ).json();
      assert.equal(info.email, 'dev@nubis.localhost');
      assert.equal(info.activated, true);
      assert.equal(info.balance, 100);
      const registered = await fetch(`${url}/v1.3/account/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: 'new@example.com',
          password: 'a long password',
          firstname: 'New',
          lastname: 'User',
          accept_tos: true,
          country: 'NL',
        }),
      });
      assert.equal(registered.status, 201);
      assert.equal(registered.headers.get('ratelimit-limit'), '1000000');
      const fresh = await (
        await fetch(`${url}/v1.3/account/info`, {
          headers: { authorization: `Bearer ${(await registered.json()).token}` },
        })
      ).json();
      assert.equal(fresh.activated, true);
      const admin = { authorization: 'Bearer nubis-emulator-admin-token', 'content-type': 'application/json' };
      const clock = await (await fetch(`${url}/admin/clock`, { headers: admin })).json();
      assert.equal(clock.mode, 'virtual');
      const moved = await fetch(`${url}/admin/clock/advance`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ seconds: 3600 }),
      });
      assert.equal(moved.status, 200);
    } finally {
      await first.stop();
    }
    const second = await startDev(port);
    try {
      assert.equal(second.token, token);
    } finally {
      await second.stop();
    }
  });

  test("a server created with --wait is running within the CLI's 10 s timeout", async () => {
    const port = await freePort();
    const dev = await startDev(port);
    const home = mkdtempSync(join(tmpdir(), 'nubis-dev-wait-'));
    try {
      const cli = spawn(
        process.execPath,
        'bin/nubis.ts -o json server create --hostname web-1 --region 101 --image 1001 --plan 1 --wait --timeout 10'.split(
          ' ',
        ),
        {
          cwd: root,
          env: cleanEnv({ XDG_CONFIG_HOME: home, NUBIS_URL: `http://127.0.0.1:${port}`, NUBIS_TOKEN: dev.token }),
        },
      );
      let stdout = '';
      let stderr = '';
      cli.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      cli.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const [code] = await once(cli, 'exit');
      // Exit 8 would say the wait gave up: provisioning took longer than the timeout.
      assert.equal(code, 0, stderr);
      assert.equal(JSON.parse(stdout).power, 'running');
    } finally {
      rmSync(home, { recursive: true, force: true });
      await dev.stop();
    }
  });

  test('a variable set explicitly wins over the preset', () => {
    const result = spawnSync(
      process.execPath,
      [
        '-e',
        "import('./src/config.ts').then(m => { const c = m.loadConfig({ NUBIS_MODE: 'emulator', CLOCK: 'system', RATE_LOGIN_PER_MINUTE: '5' }); console.log(JSON.stringify([c.clock, c.rateLoginPerMinute, c.autoActivate, c.adminToken])) })",
      ],
      { cwd: root, encoding: 'utf8' },
    );
    assert.deepEqual(JSON.parse(result.stdout), ['system', 5, true, 'nubis-emulator-admin-token']);
  });
});
