// TRUST_PROXY: the client address (activity log, rate-limit keys, the per-address connection
// cap) comes from X-Forwarded-For only when the request arrives from a listed proxy. `true` or a
// hop count would believe any client's header (and lift the cap for every peer): refused at start.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { registerBody, uniqueEmail } from '../../test/support/accounts.ts';
import { ConfigError, loadConfig } from '../config.ts';

async function registeredFrom(env: Record<string, string>): Promise<string> {
  const nubis = await startTestInstance(env);
  try {
    const registered = await nubis.request('POST', '/v1.3/account/register', {
      headers: { 'x-forwarded-for': '203.0.113.77' },
      body: {
        email: uniqueEmail(),
        password: 'a long password',
        firstname: 'Pro',
        lastname: 'Xy',
        accept_tos: true,
        country: 'NL',
      },
    });
    assert.equal(registered.status, 201);
    const info = await nubis.request('GET', '/v1.3/account/info', { token: registered.body.token });
    return info.body.activity[0].ip_address;
  } finally {
    await nubis.close();
  }
}

test('X-Forwarded-For is ignored unless the proxy is listed', async () => {
  assert.equal(await registeredFrom({}), '127.0.0.1');
  assert.equal(await registeredFrom({ TRUST_PROXY: '127.0.0.1' }), '203.0.113.77');
  assert.equal(await registeredFrom({ TRUST_PROXY: '127.0.0.0/8,::1' }), '203.0.113.77');
  assert.equal(await registeredFrom({ TRUST_PROXY: '10.0.0.1' }), '127.0.0.1');
  assert.equal(await registeredFrom({ TRUST_PROXY: 'false' }), '127.0.0.1');
});

describe('true or a hop count', () => {
  test('is refused by the configuration with a message asking for the proxies’ addresses', () => {
    for (const value of ['true', 'TRUE', '1', '2', '0']) {
      assert.throws(
        () => loadConfig({ TRUST_PROXY: value }),
        (error: unknown) =>
          error instanceof ConfigError &&
          /TRUST_PROXY/.test(error.message) &&
          /addresses or CIDRs/.test(error.message) &&
          error.message.includes(value),
        value,
      );
    }
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.0.2.1' }).trustProxy, ['10.0.0.0/8', '192.0.2.1']);
  });

  test('stops `nubis serve` at start, naming the setting', async () => {
    const child = spawn(process.execPath, ['bin/nubis.ts', 'serve'], {
      env: { ...process.env, TRUST_PROXY: 'true', PORT: '0', DATA_DIR: mkdtempSync(join(tmpdir(), 'nubis-trust-')) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const listening = new Promise<'listening'>((resolve) => {
      const read = (chunk: Buffer) => {
        output += chunk;
        if (/listening/i.test(output)) resolve('listening');
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
    });
    const exited = once(child, 'exit').then(([code]) => code as number | null);
    // A server that starts anyway is stopped, and the test fails rather than hangs.
    const outcome = await Promise.race([exited, listening]);
    if (outcome === 'listening') child.kill();
    await exited;
    assert.notEqual(outcome, 'listening', output);
    assert.notEqual(outcome, 0, output);
    assert.match(output, /TRUST_PROXY/);
  });
});

/** One request on a new connection from `localAddress`: its status and JSON body. */
function requestFrom(
  nubis: TestInstance,
  localAddress: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: { token?: string } }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      new URL(path, nubis.url),
      {
        method,
        agent: false,
        localAddress,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

test('a client not from a listed proxy is limited by its socket address, whatever X-Forwarded-For says', async () => {
  const nubis = await startTestInstance({ TRUST_PROXY: '127.0.0.1', RATE_REGISTER_PER_MINUTE: '2' });
  try {
    const register = (from: string, forwardedFor: string) =>
      requestFrom(nubis, from, 'POST', '/v1.3/account/register', { 'x-forwarded-for': forwardedFor }, registerBody());
    // A direct client (127.0.0.2) naming a new address each time still spends its own budget.
    const direct = [];
    for (let i = 1; i <= 4; i++) direct.push((await register('127.0.0.2', `198.51.100.${i}`)).status);
    assert.deepEqual(direct, [201, 201, 429, 429]);
    // Through the listed proxy (127.0.0.1), each client named by the proxy has its own budget.
    const proxied = [];
    for (let i = 1; i <= 4; i++) proxied.push((await register('127.0.0.1', `198.51.100.${i}`)).status);
    assert.deepEqual(proxied, [201, 201, 201, 201]);
    // And the activity log shows the socket's address for the direct client.
    const another = await requestFrom(
      nubis,
      '127.0.0.3',
      'POST',
      '/v1.3/account/register',
      { 'x-forwarded-for': '198.51.100.99' },
      registerBody(),
    );
    assert.equal(another.status, 201);
    const info = await nubis.request('GET', '/v1.3/account/info', { token: another.body.token! });
    assert.equal(info.body.activity[0].ip_address, '127.0.0.3');
  } finally {
    await nubis.close();
  }
});
