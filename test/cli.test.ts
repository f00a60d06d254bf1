// The nubis command as an operator runs it: help, one clear line for a bad setting,
// migrate, a sweep round, and serve with JSON logs and a graceful shutdown on SIGTERM that
// finishes the request in flight.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { testDb, testStorageEnv } from './support/instance.ts';
import { configTable } from '../src/config.ts';

const cli = new URL('../bin/nubis.ts', import.meta.url).pathname;

/** The environment of a spawned nubis: the test's own, without anything Nubis reads. */
function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !key.startsWith('TEST_')) env[key] = value;
  for (const key of [
    'PORT',
    'HOST',
    'DATA_DIR',
    'DATABASE_URL',
    'REDIS_URL',
    'SMTP_URL',
    'ADMIN_TOKEN',
    'CLOCK',
    'LOG_LEVEL',
    'CATALOG_FILE',
    'SECRET_KEY',
  ])
    delete env[key];
  return { ...env, PASSWORD_HASH_COST: '10', ...extra };
}

function run(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8', timeout: 60_000 });
}

describe('help', () => {
  test('--help is short: the subcommands, and where the variables are', () => {
    for (const args of [['--help'], ['help'], ['-h']]) {
      const result = run(args, baseEnv());
      assert.equal(result.status, 0, args.join(' '));
      for (const command of ['serve', 'migrate', 'sweep', 'server', 'admin'])
        assert.match(result.stdout, new RegExp(`^  ${command}\\b`, 'm'));
      assert.match(result.stdout, /nubis help config lists them/);
      const lines = result.stdout.trimEnd().split('\n').length;
      assert.ok(lines <= 45, `nubis ${args.join(' ')} prints ${lines} lines`);
    }
  });

  test('help config lists every variable, as docs/configuration.md does', () => {
    const result = run(['help', 'config'], baseEnv());
    assert.equal(result.status, 0, result.stderr);
    assert.ok(result.stdout.includes(configTable()));
    for (const variable of ['PORT', 'DATA_DIR', 'DATABASE_URL', 'ADMIN_TOKEN', 'CLOCK', 'RATE_TOKEN_PER_SECOND'])
      assert.match(result.stdout, new RegExp(`\\| \`${variable}\` \\|`), variable);
  });
});

describe('bad settings', () => {
  test('stop start-up with one line naming the variable, and a non-zero exit', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nubis-cli-'));
    const emptyCatalog = join(dir, 'catalog.json');
    writeFileSync(emptyCatalog, '{"regions": [], "images": [], "plans": []}');
    for (const [env, line] of [
      [{ PORT: 'abc' }, 'nubis: PORT must be an integer, got "abc"'],
      [{ PORT: '70000' }, 'nubis: PORT must be between 0 and 65535, got 70000'],
      [{ CLOCK: 'sometimes' }, 'nubis: CLOCK must be one of system, virtual, got "sometimes"'],
      [{ LOG_LEVEL: 'loud' }, /^nubis: LOG_LEVEL must be one of /],
      [{ DATABASE_URL: 'mysql://localhost/x' }, 'nubis: DATABASE_URL must use postgres: or postgresql:, got "mysql:"'],
      [{ ADMIN_TOKEN: 'short' }, 'nubis: ADMIN_TOKEN must be at least 16 characters'],
      [{ RATE_LOGIN_PER_MINUTE: '0' }, 'nubis: RATE_LOGIN_PER_MINUTE must be between 1 and 1000000, got 0'],
      [
        { PDNS_API_URL: 'http://127.0.0.1:8081' },
        'nubis: PDNS_API_KEY is missing: PDNS_API_URL is set, and PowerDNS (reverse DNS) needs PDNS_API_URL and PDNS_API_KEY together',
      ],
      [
        { PDNS_API_URL: 'ftp://127.0.0.1', PDNS_API_KEY: 'long-enough' },
        'nubis: PDNS_API_URL must use http: or https:, got "ftp:"',
      ],
      [{ CATALOG_FILE: join(dir, 'missing.json') }, /^nubis: CATALOG_FILE \S+missing\.json cannot be read as JSON: /],
      [{ CATALOG_FILE: emptyCatalog }, /^nubis: CATALOG_FILE \S+catalog\.json is not a valid catalog: regions: /],
    ] as const) {
      const result = run(['serve'], baseEnv({ DATA_DIR: dir, PORT: '0', ...env }));
      assert.equal(result.status, 2, JSON.stringify(env));
      const lines = result.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, `${JSON.stringify(env)}: ${result.stderr}`);
      if (typeof line === 'string') assert.equal(lines[0], line);
      else assert.match(lines[0]!, line);
    }
  });

  test('an unknown command is refused', () => {
    const result = run(['fly'], baseEnv());
    assert.equal(result.status, 2);
    assert.equal(result.stderr.trim(), 'nubis: unknown command "fly"; see nubis --help');
  });
});

describe('migrate and sweep', () => {
  let storage: Awaited<ReturnType<typeof testStorageEnv>>;
  before(async () => {
    storage = await testStorageEnv();
  });
  after(async () => {
    await storage.cleanup();
  });

  test('migrate applies the migrations once; running it again changes nothing', () => {
    const first = run(['migrate'], baseEnv({ ...storage.env, LOG_LEVEL: 'info' }));
    assert.equal(first.status, 0, first.stderr);
    const applied = first.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => (line.startsWith('{') ? JSON.parse(line) : { msg: line }));
    assert.ok(applied.some((entry) => entry.msg === 'migrations applied' && entry.migrations.includes('0001_initial')));
    if (testDb === 'sqlite') assert.ok(existsSync(join(storage.env.DATA_DIR!, 'nubis.db')));
    const second = run(['migrate'], baseEnv({ ...storage.env, LOG_LEVEL: 'info' }));
    assert.equal(second.status, 0, second.stderr);
    assert.equal(second.stdout.includes('migrations applied'), false);
    assert.match(second.stdout, /migrations are up to date/);
  });

  test('sweep --once runs one round and exits', () => {
    const result = run(['sweep', '--once'], baseEnv({ ...storage.env, LOG_LEVEL: 'warn' }));
    assert.equal(result.status, 0, result.stderr);
  });
});

describe('serve', () => {
  let storage: Awaited<ReturnType<typeof testStorageEnv>>;
  before(async () => {
    storage = await testStorageEnv();
  });
  after(async () => {
    await storage.cleanup();
  });

  test('logs JSON with a request id, and on SIGTERM finishes the request in flight, refuses new ones, and exits 0', async () => {
    const child = spawn(process.execPath, [cli, 'serve'], {
      // debug: the arrival of a request is logged too, so the test knows it is in flight.
      env: baseEnv({ ...storage.env, PORT: '0', LOG_LEVEL: 'debug', SWEEPS: 'false' }),
    }) as ChildProcessWithoutNullStreams;
    const logs: Record<string, unknown>[] = [];
    const waiters: {
      match: (entry: Record<string, unknown>) => boolean;
      resolve: (entry: Record<string, unknown>) => void;
    }[] = [];
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>; // a line that is not JSON fails the test here
      logs.push(entry);
      for (const waiter of [...waiters])
        if (waiter.match(entry)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(entry);
        }
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = once(child, 'exit');
    const logged = (match: (entry: Record<string, unknown>) => boolean) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const seen = logs.find(match);
        if (seen) return resolve(seen);
        waiters.push({ match, resolve });
      });

    try {
      const listening = await Promise.race([
        logged(
          (entry) => typeof entry.msg === 'string' && entry.msg.startsWith('Server listening at http://127.0.0.1:'),
        ),
        exited.then(() => {
          throw new Error(`nubis serve exited early: ${stderr}`);
        }),
      ]);
      const port = Number(/:(\d+)$/.exec(String(listening.msg))![1]);

      // A registration whose body arrives in two halves: it is in flight while the signal comes.
      const body = JSON.stringify({
        email: 'slow@example.com',
        password: 'a good password',
        firstname: 'Slow',
        lastname: 'Client',
        accept_tos: true,
        country: 'NL',
      });
      const slow = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1.3/account/register',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-request-id': 'slow-request-1',
        },
      });
      const answered = once(slow, 'response') as Promise<[IncomingMessage]>;
      slow.write(body.slice(0, 20));
      await logged((entry) => entry.reqId === 'slow-request-1' && entry.msg === 'incoming request');

      child.kill('SIGTERM');
      await logged(
        (entry) => entry.msg === 'shutting down: finishing in-flight requests' && entry.signal === 'SIGTERM',
      );

      // Once what arrived before the signal is taken in, new requests are no longer taken.
      await logged((entry) => typeof entry.msg === 'string' && entry.msg.startsWith('draining:'));
      const refused = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.status,
        (error: Error) => (error.cause as { code?: string } | undefined)?.code ?? error.message,
      );
      assert.ok(refused === 'ECONNREFUSED' || refused === 503, `a new request after SIGTERM got ${refused}`);

      slow.end(body.slice(20));
      const [response] = await answered;
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      assert.equal(response.statusCode, 201);
      assert.equal(response.headers['x-request-id'], 'slow-request-1');
      assert.match(JSON.parse(Buffer.concat(chunks).toString('utf8')).token, /^[0-9a-f]{64}$/);

      const [code] = await exited;
      assert.equal(code, 0, stderr);
      // Every line is the log's (stdout), the one naming the operator token's file on this first run
      // included; stderr carries nothing.
      assert.equal(stderr, '');
      assert.ok(logs.some((entry) => /^operator token written to \S+admin-token /.test(String(entry.msg))));
      const completed = logs.find((entry) => entry.reqId === 'slow-request-1' && entry.msg === 'request completed');
      assert.ok(completed, 'the finished request is logged with its reqId');
      assert.ok(logs.every((entry) => typeof entry.level === 'number' && typeof entry.time === 'number'));
      assert.equal(JSON.stringify(logs).includes('a good password'), false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
