// A remote engine over HTTPS with a client certificate: the local LXD is made to listen on
// 127.0.0.1 (core.https_address, put back afterwards), a client certificate made here is trusted
// with a token (`nubis compute trust`, what an operator runs against a remote engine), and Nubis
// runs a server through https only. An untrusted certificate and a wrong engine certificate fail
// the job with a clear reason, quickly.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { freePort } from '../support/ports.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createAccount } from '../support/accounts.ts';
import { LxdClient } from '../../src/compute/lxd-engine.ts';
import {
  awaitPower,
  createRefused,
  engine,
  eventually,
  publicAddress,
  sshEventually,
  startLxdInstance,
  TEST_IMAGE,
} from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'nubis-remote-'));
const lxd = engine();
/** core.https_address as it was before the suite (restored after); '' when unset. */
let previousAddress = '';
let httpsUrl = '';
const trusted = certificate('nubis-remote-test');
const stranger = certificate('nubis-stranger');
const serverCert = join(dir, 'engine.crt');
const wrongServerCert = stranger.cert;
const env = () => ({
  LXD_URL: httpsUrl,
  LXD_CLIENT_CERT: trusted.cert,
  LXD_CLIENT_KEY: trusted.key,
  LXD_SERVER_CERT: serverCert,
});

/** A self-signed client certificate (openssl, as `lxc` makes its own): paths and fingerprint. */
function certificate(name: string): { cert: string; key: string; fingerprint: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const made = spawnSync('openssl', [
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:secp384r1', '-nodes'],
    ...['-keyout', key, '-out', cert, '-days', '1', '-subj', `/CN=${name}`],
  ]);
  assert.equal(made.status, 0, String(made.stderr));
  const der = new X509Certificate(readFileSync(cert)).raw;
  return { cert, key, fingerprint: createHash('sha256').update(der).digest('hex') };
}

function cli(...args: string[]) {
  return spawnSync(process.execPath, ['bin/nubis.ts', ...args], {
    encoding: 'utf8',
    env: { ...process.env, COMPUTE_DRIVER: 'lxd', ...env() },
    timeout: 60_000,
  });
}

before(async () => {
  const server = await lxd.get<{ config: Record<string, string>; environment: { certificate: string } }>('/1.0');
  previousAddress = server.config['core.https_address'] ?? '';
  // An address the engine already listens on is used as it is (and left alone).
  const address = previousAddress.startsWith('127.0.0.1:') ? previousAddress : `127.0.0.1:${await freePort()}`;
  if (address !== previousAddress)
    await lxd.call('PATCH', '/1.0', { body: { config: { 'core.https_address': address } } });
  httpsUrl = `https://${address}`;
  writeFileSync(serverCert, server.environment.certificate);
});

after(async () => {
  for (const { fingerprint } of [trusted, stranger])
    await lxd.call('DELETE', `/1.0/certificates/${fingerprint}`).catch(() => {});
  if (httpsUrl && !previousAddress.startsWith('127.0.0.1:'))
    await lxd.call('PATCH', '/1.0', { body: { config: { 'core.https_address': previousAddress } } });
  lxd.close();
});

test('nubis compute trust: a token from the engine makes it trust the client certificate', async () => {
  const untrusted = new LxdClient({ url: httpsUrl, clientCert: trusted.cert, clientKey: trusted.key, serverCert });
  try {
    await assert.rejects(untrusted.get('/1.0/instances'), /not authorized \(is LXD_CLIENT_CERT trusted/);
    // What `lxc config trust add` does on the engine's host: a one-time token.
    const issued = await lxd.call<{ metadata: Record<string, unknown> }>('POST', '/1.0/certificates', {
      body: { type: 'client', name: 'nubis-remote-test', token: true },
    });
    const meta = issued.metadata.metadata as { fingerprint: string; addresses: string[]; secret: string };
    const token = Buffer.from(
      JSON.stringify({ client_name: 'nubis-remote-test', ...meta, expires_at: '0001-01-01T00:00:00Z' }),
    ).toString('base64');
    const trust = cli('compute', 'trust', token);
    assert.equal(trust.status, 0, trust.stderr);
    assert.match(trust.stdout, /trusts/);
    assert.ok(await lxd.exists(`/1.0/certificates/${trusted.fingerprint}`), 'the engine lists the certificate');
    assert.ok(Array.isArray(await untrusted.get('/1.0/instances')));
    // Setup over https finds what the socket made (idempotent).
    const setup = cli('compute', 'setup');
    assert.equal(setup.status, 0, setup.stderr);
    assert.match(setup.stdout, /present network nubis-101/);
  } finally {
    untrusted.close();
  }
});

test('over https: create → running → SSH answers → remove', async () => {
  const nubis = await startLxdInstance(env());
  let uuid = '';
  try {
    const alice = await createAccount(nubis);
    const created = await nubis.request('POST', '/v1.3/server/create', {
      token: alice.token,
      body: { hostname: 'remote.example.com', label: 'remote', region: 101, image: TEST_IMAGE, plan: 1 },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    uuid = created.body.uuid;
    const running = await awaitPower(nubis, alice.token, uuid, 'running');
    assert.equal((await lxd.get<{ status: string }>(`/1.0/instances/nubis-${uuid}`)).status, 'Running');
    const login = await sshEventually(publicAddress(running), { password: running.info.password }, 'hostname');
    assert.equal(login.stdout.trim(), 'remote.example.com');
    const removed = await nubis.request('DELETE', `/v1.3/server/remove/${uuid}`, { token: alice.token });
    assert.equal(removed.status, 204);
    await eventually('instance deleted over https', 60, async () =>
      (await lxd.exists(`/1.0/instances/nubis-${uuid}`)) ? undefined : true,
    );
    uuid = '';
  } finally {
    if (uuid) await lxd.run('DELETE', `/1.0/instances/nubis-${uuid}?force=true`).catch(() => {});
    await nubis.close();
  }
});

for (const [what, change, reason] of [
  [
    'an untrusted client certificate',
    { LXD_CLIENT_CERT: stranger.cert, LXD_CLIENT_KEY: stranger.key },
    /^provisioning failed after 1 attempts: GET \/1\.0\/instances\/nubis-[0-9a-f-]+: not authorized \(is LXD_CLIENT_CERT trusted by the engine\?/,
  ],
  [
    'a wrong engine certificate',
    { LXD_SERVER_CERT: wrongServerCert },
    /^provisioning failed after 1 attempts: engine https:\/\/127\.0\.0\.1:\d+: its certificate is not trusted \(.+\); LXD_SERVER_CERT must hold/,
  ],
] as const)
  test(`${what}: the job fails at once with the reason, the server settles stopped`, async () => {
    const nubis = await startLxdInstance({ ...env(), ...change, COMPUTE_JOB_ATTEMPTS: '1' });
    try {
      const { uuid } = await createRefused(nubis, 'refused.example.com', 30);
      const seen = await nubis.admin('GET', `/admin/servers/${uuid}`);
      assert.match(seen.body.engine_error, reason);
      assert.equal(await lxd.exists(`/1.0/instances/nubis-${uuid}`), false, 'nothing was made');
    } finally {
      await nubis.close();
    }
  });
