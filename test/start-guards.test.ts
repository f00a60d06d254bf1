// Issue 34: what `nubis serve` refuses to start with, as an operator meets it: one line on stderr
// naming the variable, exit status 2, and never a credential printed whole.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

const root = new URL('..', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'nubis-start-guards-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs `nubis serve` with only `env` (and PATH) set, until it exits; a start that serves is killed and fails. */
async function serve(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const child = spawn(process.execPath, ['bin/nubis.ts', 'serve'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    out.stdout += chunk.toString();
    // It started: that is the failure this file looks for.
    if (/listening at/.test(out.stdout)) child.kill();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out.stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, ...out };
}

/** Asserts a refused start: exit 2 and one line on stderr matching every pattern. */
function assertRefused(run: { code: number | null; stderr: string; stdout: string }, ...patterns: RegExp[]) {
  assert.equal(run.code, 2, `exit ${run.code}: ${run.stderr}${run.stdout}`);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  for (const pattern of patterns) assert.match(lines[0]!, pattern);
}

describe('emulator tools in server mode', () => {
  test('the simulated payment processor stops the start, naming the variable and the way to allow it', async () => {
    assertRefused(
      await serve({ PAYMENT_PROCESSOR: 'simulated' }),
      /PAYMENT_PROCESSOR=simulated/,
      /NUBIS_MODE=emulator or CLOCK=virtual/,
    );
  });
});

describe('half a configuration of an integration', () => {
  const cases: [what: string, env: Record<string, string>, missing: string][] = [
    ['Stripe: the webhook secret alone', { STRIPE_WEBHOOK_SECRET: 'whsec_0123456789' }, 'STRIPE_SECRET_KEY'],
    ['Stripe: the secret key alone', { STRIPE_SECRET_KEY: 'sk_test_0123456789' }, 'STRIPE_WEBHOOK_SECRET'],
    ['Stripe: PAYMENT_PROCESSOR=stripe without keys', { PAYMENT_PROCESSOR: 'stripe' }, 'STRIPE_SECRET_KEY'],
    [
      'LXD over HTTPS: no client certificate',
      { COMPUTE_DRIVER: 'lxd', LXD_URL: 'https://127.0.0.1:8443' },
      'LXD_CLIENT_CERT',
    ],
    ['LXD: a client certificate without its key', { LXD_CLIENT_CERT: '/etc/nubis/client.crt' }, 'LXD_CLIENT_KEY'],
    ['LXD: a client key without its certificate', { LXD_CLIENT_KEY: '/etc/nubis/client.key' }, 'LXD_CLIENT_CERT'],
    ['SMTP: a user without a password', { SMTP_URL: 'smtp://mailer@127.0.0.1:2525' }, 'SMTP_URL'],
    ['Redis: a user without a password', { REDIS_URL: 'redis://cache@127.0.0.1:6379' }, 'REDIS_URL'],
  ];
  for (const [what, env, missing] of cases)
    test(`${what} stops the start naming ${missing}`, async () => {
      assertRefused(await serve(env), new RegExp(`^nubis: ${missing} `));
    });
});

describe('credentials in configuration errors', () => {
  const secret = 'hunter2-not-for-logs';
  const cases: [variable: string, value: string][] = [
    ['DATABASE_URL', `postgres://nubis:${secret}@127.0.0.1:99999/nubis`],
    ['DATABASE_URL', `postgres://nubis:${secret} @127.0.0.1/nubis`],
    ['SMTP_URL', `smtp://mailer:${secret}@mail .example:25`],
    ['REDIS_URL', `redis://:${secret}@127.0.0.1:99999`],
    ['STRIPE_API_URL', `https://key:${secret}@[stripe`],
    ['PUBLIC_URL', `https://me:${secret}@nubis example`],
  ];
  for (const [variable, value] of cases)
    test(`a malformed ${variable} is printed with its password as ***`, async () => {
      const run = await serve({ [variable]: value });
      assertRefused(run, new RegExp(`^nubis: ${variable} `), /:\*\*\*@/);
      assert.doesNotMatch(run.stderr + run.stdout, new RegExp(secret));
    });

  test('a DATABASE_URL that cannot be reached is named without its password', async () => {
    const run = await serve({ DATABASE_URL: `postgres://nubis:${secret}@127.0.0.1:1/nubis`, DB_CONNECT_RETRIES: '0' });
    assertRefused(run, /^nubis: DATABASE_URL postgres:\/\/nubis:\*\*\*@127\.0\.0\.1:1\/nubis: /);
    assert.doesNotMatch(run.stderr + run.stdout, new RegExp(secret));
  });
});
