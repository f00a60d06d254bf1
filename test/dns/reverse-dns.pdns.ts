// Reverse DNS published to a real PowerDNS Authoritative: `nubis dns setup` makes the zones,
// then what `dig -x` answers follows server creation, rdns/put, floating IP attachment and
// removal; with PowerDNS down the API answers as usual and the outbox catches up once it is back.
// Run by `npm test` as its own stage (scripts/test.ts), which fails under CI=true when PowerDNS
// is not installed.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { createAccount, type TestAccount } from '../support/accounts.ts';
import { startTestInstance, type TestInstance } from '../support/instance.ts';
import { powerDnsMissing, startPowerDns, type PowerDns } from '../support/powerdns.ts';
import { deployServer, serverInfo } from '../support/servers.ts';

const run = promisify(execFile);
const missing = powerDnsMissing();
if (missing) throw new Error(`the reverse DNS suite needs PowerDNS: ${missing}`);

let pdns: PowerDns;
let nubis: TestInstance;
let alice: TestAccount;
const catalogDir = mkdtempSync(join(tmpdir(), 'nubis-rdns-catalog-'));

/** The shipped catalog, with region 102's pool (192.0.2.128/26) marked as part of a /24 held elsewhere. */
function classlessCatalog(dir: string): string {
  const catalog = JSON.parse(readFileSync('src/catalog/catalog.json', 'utf8'));
  const region = catalog.regions.find((r: { id: number }) => r.id === 102);
  region.pools.v4_classless = region.pools.v4;
  const file = join(dir, 'catalog.json');
  writeFileSync(file, JSON.stringify(catalog));
  return file;
}

/** The outbox once empty: every queued change is on PowerDNS (the queue is the event waited on). */
async function published(): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const queue = await nubis.admin('GET', '/admin/reverse-dns/queue');
    assert.equal(queue.status, 200);
    if (queue.body.changes.length === 0) return;
    await pause(10);
  }
  assert.fail('the reverse DNS outbox did not empty');
}

before(async () => {
  pdns = await startPowerDns();
  const env = { PDNS_API_URL: pdns.apiUrl, PDNS_API_KEY: pdns.apiKey };
  const catalogFile = classlessCatalog(catalogDir);
  nubis = await startTestInstance({ ...env, CATALOG_FILE: catalogFile });
  alice = await createAccount(nubis);
  // The operator's step, as the docs give it.
  const setup = await run(process.execPath, ['bin/nubis.ts', 'dns', 'setup'], {
    env: {
      ...process.env,
      ...env,
      CATALOG_FILE: catalogFile,
      DATA_DIR: nubis.config.dataDir,
      DATABASE_URL: nubis.config.databaseUrl ?? '',
      LOG_LEVEL: 'silent',
    },
  });
  assert.match(setup.stdout, /created zone 2\.0\.192\.in-addr\.arpa\./);
  assert.match(setup.stdout, /created zone 128-26\.2\.0\.192\.in-addr\.arpa\./);
});
after(async () => {
  await nubis?.close();
  await pdns?.close();
  rmSync(catalogDir, { recursive: true, force: true });
});

describe('reverse DNS on PowerDNS', () => {
  test('dns setup again changes nothing: every zone is present', async () => {
    const again = await run(process.execPath, ['bin/nubis.ts', 'dns', 'setup'], {
      env: {
        ...process.env,
        PDNS_API_URL: pdns.apiUrl,
        PDNS_API_KEY: pdns.apiKey,
        CATALOG_FILE: nubis.config.catalogFile ?? '',
        DATA_DIR: nubis.config.dataDir,
        DATABASE_URL: nubis.config.databaseUrl ?? '',
        LOG_LEVEL: 'silent',
      },
    });
    assert.doesNotMatch(again.stdout, /created zone/);
    assert.match(again.stdout, /present zone 2\.0\.192\.in-addr\.arpa\./);
  });

  test('a new server answers with its hostname, then with the name rdns/put sets; its removal takes the PTRs', async () => {
    const server = await deployServer(nubis, alice.token, { hostname: 'web-7.example.com', ipv6_networking: true });
    const info = await serverInfo(nubis, alice.token, server.id);
    const v4 = info.iface.v4[0].address as string;
    const v6 = info.iface.v6[0].address as string;
    await published();
    assert.deepEqual(await pdns.reverse(v4), ['web-7.example.com.']);
    assert.deepEqual(await pdns.reverse(v6), ['web-7.example.com.']);

    const put = await nubis.request('PUT', '/v1.3/rdns/put', {
      token: alice.token,
      body: { server_id: String(server.id), rdns: 'mail.example.com' },
    });
    assert.equal(put.status, 202, JSON.stringify(put.body));
    await published();
    assert.deepEqual(await pdns.reverse(v4), ['mail.example.com.']);
    assert.deepEqual(await pdns.reverse(v6), ['web-7.example.com.']);

    const removed = await nubis.request('DELETE', `/v1.3/server/remove/${server.id}`, { token: alice.token });
    assert.equal(removed.status, 204, JSON.stringify(removed.body));
    await published();
    assert.deepEqual(await pdns.reverse(v4), []);
    assert.deepEqual(await pdns.reverse(v6), []);
  });

  test("a floating IP answers with its server's hostname once attached, and with nothing once detached and released", async () => {
    const server = await deployServer(nubis, alice.token, { hostname: 'app.example.com' });
    const made = await nubis.request('POST', '/v1.3/floating_ip/create', {
      token: alice.token,
      body: { region_id: 101, ip_version: 4 },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const ip = { uuid: made.body.uuid as string, address: made.body.ip_address as string };
    await published();
    assert.deepEqual(await pdns.reverse(ip.address), []);

    const attached = await nubis.request('PATCH', '/v1.3/floating_ip/attach', {
      token: alice.token,
      body: { server_id: server.uuid, ip_id: ip.uuid },
    });
    assert.equal(attached.status, 202, JSON.stringify(attached.body));
    await published();
    assert.deepEqual(await pdns.reverse(ip.address), ['app.example.com.']);

    const detached = await nubis.request('PATCH', '/v1.3/floating_ip/detach', {
      token: alice.token,
      body: { server_id: server.uuid, ip_id: ip.uuid },
    });
    assert.equal(detached.status, 202, JSON.stringify(detached.body));
    await published();
    assert.deepEqual(await pdns.reverse(ip.address), []);
    const removed = await nubis.request('DELETE', `/v1.3/floating_ip/remove/${ip.uuid}`, { token: alice.token });
    assert.equal(removed.status, 204, JSON.stringify(removed.body));
    await published();
    assert.deepEqual(await pdns.reverse(ip.address), []);
  });

  test('a pool held as part of a /24 (RFC 2317) is answered through the /24 zone’s CNAME', async () => {
    const server = await deployServer(nubis, alice.token, { hostname: 'classless.example.com', region: 102 });
    const v4 = (await serverInfo(nubis, alice.token, server.id)).iface.v4[0].address as string;
    await published();
    const last = v4.split('.')[3];
    assert.deepEqual(await pdns.reverse(v4), [`${last}.128-26.2.0.192.in-addr.arpa.`, 'classless.example.com.']);
  });

  test('with PowerDNS down rdns/put answers as usual, the operator sees the change waiting, and it lands once PowerDNS is back', async () => {
    const server = await deployServer(nubis, alice.token, { hostname: 'before.example.com' });
    const v4 = (await serverInfo(nubis, alice.token, server.id)).iface.v4[0].address as string;
    await published();
    await pdns.stop();
    try {
      const put = await nubis.request('PUT', '/v1.3/rdns/put', {
        token: alice.token,
        body: { server_id: String(server.id), rdns: 'after.example.com' },
      });
      assert.equal(put.status, 202, JSON.stringify(put.body));
      // The attempt made after the commit fails, and says why.
      let change: { address: string; name: string; attempts: number; last_error: string | null } | undefined;
      for (let i = 0; i < 500 && !change?.last_error; i++) {
        if (i) await pause(10);
        change = (await nubis.admin('GET', '/admin/reverse-dns/queue')).body.changes[0];
      }
      assert.equal(change?.address, v4);
      assert.equal(change?.name, 'after.example.com');
      assert.ok(change!.attempts >= 1);
      assert.match(change!.last_error ?? '', /fetch failed|ECONNREFUSED/);
    } finally {
      await pdns.start();
    }
    assert.deepEqual(await pdns.reverse(v4), ['before.example.com.']);
    // The retry comes due with the clock: the sweep round the advance runs publishes it.
    await nubis.advance(60);
    await published();
    assert.deepEqual(await pdns.reverse(v4), ['after.example.com.']);
  });
});
