// The README's first session, pasted twice beside `npm run dev` (bash, curl, node), and the
// emulator preset it relies on: the seeded account and its printed token, automatic activation, the
// virtual clock, relaxed rate limits, one log line per request, the same token after a restart.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './support/ports.ts';
import { testStorageEnv } from './support/instance.ts';
import { cleanEnv, finished } from './support/processes.ts';

const root = new URL('..', import.meta.url).pathname;

function firstSession(): string {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const match = /<!-- first-session[^>]*-->\n```sh\n([\s\S]*?)```/.exec(readme);
  assert.ok(match, 'the README has a first-session block');
  return match[1]!;
}

/** Runs a bash script to its end; its output and exit code. */
function bash(script: string, cwd: string, env: Record<string, string>) {
  return finished(spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

let storage: Awaited<ReturnType<typeof testStorageEnv>>;
before(async () => {
  storage = await testStorageEnv();
});
after(async () => {
  await storage.cleanup();
});

describe('first session', () => {
  test("the README's block, pasted twice beside `npm run dev`, works both times", async () => {
    const port = await freePort();
    const env = cleanEnv({ ...storage.env, PORT: String(port) });
    // `npm run dev` as the README says, in its own process group so that npm and Nubis both go at the end.
    const dev = spawn('npm', ['run', 'dev'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    let stderr = '';
    dev.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const ready = new Promise<void>((resolve, reject) => {
      // Ready once the log has the emulator's greeting (it follows the listening line).
      dev.stdout.on('data', (chunk) => {
        log += chunk;
        if (/"msg":"emulator ready/.test(log)) resolve();
      });
      dev.once('exit', () => reject(new Error(`npm run dev exited: ${stderr}${log}`)));
    });
    const folder = mkdtempSync(join(tmpdir(), 'nubis-first-session-'));
    try {
      await ready;
      const runs = [];
      for (const _paste of [1, 2]) {
        const run = await bash(firstSession(), folder, env);
        assert.equal(run.code, 0, run.stderr);
        const server = /^server (\d+) is running$/m.exec(run.stdout);
        const invoice = /^invoice (\d+) saved as invoice\.pdf$/m.exec(run.stdout);
        assert.ok(server && invoice, run.stdout);
        const sum = JSON.parse(run.stdout.split('\n').find((line) => line.startsWith('{"server":'))!);
        assert.equal(typeof sum.server, 'number');
        assert.ok(sum.ts_start < sum.ts_end);
        assert.equal(readFileSync(join(folder, 'invoice.pdf')).subarray(0, 5).toString(), '%PDF-');
        runs.push({ server: Number(server[1]), invoice: Number(invoice[1]), month: sum.ts_start });
      }
      // The second paste made another server and got the next month's invoice.
      assert.notEqual(runs[0]!.server, runs[1]!.server);
      assert.notEqual(runs[0]!.invoice, runs[1]!.invoice);
      assert.notEqual(runs[0]!.month, runs[1]!.month);
    } finally {
      try {
        process.kill(-dev.pid!, 'SIGTERM');
      } catch {}
      if (dev.exitCode === null) await once(dev, 'exit');
      rmSync(folder, { recursive: true, force: true });
    }
    // The server's own log: one JSON line per request, nothing else on stdout but npm's banner.
    const requests = log
      .split('\n')
      .filter((line) => line.startsWith('{"'))
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.msg === 'request completed');
    assert.equal(requests.filter((entry) => entry.path === '/v1.3/account/login' && entry.status === 200).length, 2);
    assert.equal(requests.filter((entry) => entry.path === '/v1.3/server/create' && entry.status === 201).length, 2);
    assert.ok(!log.includes('incoming request'));
    // The emulator's greeting, a log line like the others, names the seeded account and its token.
    const greeting = log
      .split('\n')
      .filter((line) => line.startsWith('{"'))
      .map((line) => JSON.parse(line))
      .find((entry) => /^emulator ready/.test(entry.msg));
    assert.equal(greeting?.account?.email, 'dev@nubis.localhost', log);
    assert.match(greeting.account.token, /^[0-9a-f]{64}$/);
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
      const { code, stdout, stderr } = await finished(cli);
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
