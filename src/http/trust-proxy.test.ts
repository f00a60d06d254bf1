// TRUST_PROXY: the client address (activity log, rate-limit keys) comes from X-Forwarded-For
// only when the request arrives from a trusted proxy.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance } from '../../test/support/instance.ts';
import { uniqueEmail } from '../../test/support/accounts.ts';

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

test('X-Forwarded-For is ignored unless the proxy is trusted', async () => {
  assert.equal(await registeredFrom({}), '127.0.0.1');
  assert.equal(await registeredFrom({ TRUST_PROXY: '127.0.0.1' }), '203.0.113.77');
  assert.equal(await registeredFrom({ TRUST_PROXY: '127.0.0.0/8,::1' }), '203.0.113.77');
  assert.equal(await registeredFrom({ TRUST_PROXY: '10.0.0.1' }), '127.0.0.1');
  assert.equal(await registeredFrom({ TRUST_PROXY: '1' }), '203.0.113.77');
});
