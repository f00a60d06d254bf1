// A scripted session of ~50 calls over accounts, servers, floating IPs, snapshots, tokens, mail,
// fault dice, the clock and the state export, answered in full (status, body, request id): two
// seeded instances answer it byte for byte alike (deterministic.test.ts), and so do the prebuilt
// server and the sources (prebuilt.test.ts).

import assert from 'node:assert/strict';
import type { TestInstance } from './instance.ts';
import { ecdsaPublicKey } from './servers.ts';

// One input key for every run: the same requests, byte for byte.
const publicKey = ecdsaPublicKey('laptop@example');

export interface Answer {
  call: string;
  status: number;
  /** The body as sent, and the request id: both must match run after run. */
  text: string;
  requestId: string | null;
}

export async function scriptedSession(nubis: TestInstance): Promise<Answer[]> {
  const answers: Answer[] = [];
  const call = async (method: string, path: string, options: { token?: string; body?: unknown } = {}) => {
    const response = await fetch(nubis.url + path, {
      method,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    answers.push({
      call: `${method} ${path}`,
      status: response.status,
      text,
      requestId: response.headers.get('x-request-id'),
    });
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const admin = (method: string, path: string, body?: unknown) =>
    call(method, path, { token: nubis.config.adminToken!, body });

  const people = [];
  for (const name of ['ada', 'bob']) {
    const registered = await call('POST', '/v1.3/account/register', {
      body: {
        email: `${name}@example.com`,
        password: 'a long password',
        firstname: name,
        lastname: 'Test',
        accept_tos: true,
        country: 'NL',
      },
    });
    assert.equal(registered.status, 201);
    const mail = await admin('GET', `/admin/outbox?to=${name}@example.com`);
    const activation = /Activation uuid: ([0-9a-f-]{36})/.exec(mail.body.messages[0].text)![1];
    await call('PUT', '/v1.3/account/activate', { body: { uuid: activation } });
    const login = await call('POST', '/v1.3/account/login', {
      body: { email: `${name}@example.com`, password: 'a long password' },
    });
    const token = login.body.token as string;
    const info = await call('GET', '/v1.3/account/info', { token });
    await admin('POST', `/admin/accounts/${info.body.id}/credit`, { amount: 50 });
    people.push({ token });
  }
  const [ada, bob] = people as [{ token: string }, { token: string }];
  await call('POST', '/v1.3/account/login', { body: { email: 'nobody@example.com', password: 'a long password' } });
  const key = await call('POST', '/v1.3/ssh_key/create', {
    token: ada.token,
    body: { name: 'laptop', public_key: publicKey },
  });
  const vpc = await call('POST', '/v1.3/vpc/create', { token: ada.token, body: { region_id: 101, name: 'backend' } });
  const servers = [];
  for (const hostname of ['web-1', 'web-2']) {
    const created = await call('POST', '/v1.3/server/create', {
      token: ada.token,
      body: {
        hostname,
        label: hostname,
        region: 101,
        image: 1001,
        plan: 1,
        ssh_key: key.body.id,
        vpc: vpc.body.id,
        ipv6: true,
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    servers.push(created.body.id as number);
  }
  await call('POST', '/v1.3/server/create', {
    token: bob.token,
    body: { hostname: 'db-1', label: 'db', region: 101, image: 1001, plan: 1, backups: true },
  });
  await call('GET', '/v1.3/server/list', { token: ada.token });
  await admin('POST', '/admin/clock/advance', { seconds: 600 });
  await call('GET', `/v1.3/server/info/${servers[0]}`, { token: ada.token });
  await call('PATCH', '/v1.3/server/reboot', { token: ada.token, body: { server_id: servers[0] } });
  await call('POST', '/v1.3/server/reinstall', { token: ada.token, body: { server_id: servers[1] } });
  const ip = await call('POST', '/v1.3/floating_ip/create', {
    token: ada.token,
    body: { region_id: 101, ip_version: 4 },
  });
  const attached = await call('PATCH', '/v1.3/floating_ip/attach', {
    token: ada.token,
    body: { ip_id: ip.body.uuid, server_id: servers[0] },
  });
  assert.equal(attached.status, 202, JSON.stringify(attached.body));
  await call('POST', '/v1.3/floating_ip/create', { token: bob.token, body: { region_id: 101, ip_version: 6 } });
  await call('POST', '/v1.3/snapshot/create', { token: ada.token, body: { name: 'before', server_id: servers[0] } });
  await call('POST', '/v1.3/account/token_create', { token: ada.token, body: { name: 'ci' } });
  await call('GET', '/v1.3/account/token_list', { token: ada.token });
  const reset = await call('PATCH', '/v1.3/account/reset', { body: { email: 'bob@example.com' } });
  assert.equal(reset.status, 202);
  await admin('GET', '/admin/outbox?to=bob@example.com');
  // Fault dice: a rule that fires half the time, on ten reads.
  await admin('POST', '/admin/faults', {
    match: { path: '/v1.3/region/list' },
    action: { status: 503 },
    probability: 0.5,
  });
  for (let i = 0; i < 10; i++) await call('GET', '/v1.3/region/list');
  await admin('DELETE', '/admin/faults');
  await admin('POST', '/admin/clock/advance', { seconds: 2 * 86_400 });
  for (const path of [
    '/v1.3/server/list',
    '/v1.3/snapshot/list',
    '/v1.3/floating_ip/list',
    '/v1.3/vpc/list',
    '/v1.3/invoice/list',
    '/v1.3/transaction/list',
    '/v1.3/account/info',
  ])
    await call('GET', path, { token: ada.token });
  await call('GET', '/v1.3/server/list', { token: bob.token });
  await call('GET', '/v1/server/list', { token: bob.token });
  await admin('GET', '/admin/events?limit=1000');
  await admin('GET', '/admin/accounts');
  await admin('POST', '/admin/state/export');
  return answers;
}

export function assertSameAnswers(left: Answer[], right: Answer[]): void {
  assert.equal(left.length, right.length);
  for (const [i, answer] of left.entries()) assert.deepEqual(right[i], answer, `answer ${i + 1}: ${answer.call}`);
}
