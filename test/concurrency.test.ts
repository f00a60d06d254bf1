// Concurrent clients on one account (meant for PostgreSQL, where transactions really overlap; it
// runs on SQLite too): parallel removes of one resource (exactly one wins, the others are 404),
// creates naming a resource removed at the same moment (404, never a foreign-key 500), and a mix
// of actions at once. No 5xx, and no error-level line (deadlocks included) in the server's log.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { startTestInstance, type TestInstance } from './support/instance.ts';
import { createAccount, type TestAccount } from './support/accounts.ts';
import { deployServer, ecdsaPublicKey, orderServer, standardServer } from './support/servers.ts';

describe('concurrent clients', () => {
  let nubis: TestInstance;
  let account: TestAccount;
  let serverId: number;

  before(async () => {
    nubis = await startTestInstance({}, { captureLog: true });
    account = await createAccount(nubis, { credit: 100_000 });
    serverId = (await deployServer(nubis, account.token)).id;
  });
  after(async () => {
    await nubis?.close();
  });

  const make: Record<string, () => Promise<string>> = {
    'ssh key': async () =>
      (
        await nubis.request('POST', '/v1.3/ssh_key/create', {
          token: account.token,
          body: { name: 'k', public_key: ecdsaPublicKey() },
        })
      ).body.uuid,
    token: async () =>
      (await nubis.request('POST', '/v1.3/account/token_create', { token: account.token, body: { name: 't' } })).body
        .uuid,
    snapshot: async () =>
      (
        await nubis.request('POST', '/v1.3/snapshot/create', {
          token: account.token,
          body: { server_id: serverId, name: 's' },
        })
      ).body.uuid,
    vpc: async () =>
      (await nubis.request('POST', '/v1.3/vpc/create', { token: account.token, body: { name: 'n', region_id: 101 } }))
        .body.uuid,
  };
  const removePath: Record<string, string> = {
    'ssh key': '/v1.3/ssh_key/remove/',
    token: '/v1.3/account/token_remove/',
    snapshot: '/v1.3/snapshot/remove/',
    vpc: '/v1.3/vpc/remove/',
  };

  it('lets exactly one of several parallel removes of a resource win; the others answer 404', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(make)), fc.integer({ min: 2, max: 8 }), async (kind, clients) => {
        const id = await make[kind]!();
        assert.ok(id, `${kind} was not made`);
        if (kind === 'snapshot') await nubis.advance(600);
        const answers = await Promise.all(
          Array.from({ length: clients }, () =>
            nubis.request('DELETE', removePath[kind] + id, { token: account.token }),
          ),
        );
        const statuses = answers.map((a) => a.status).sort();
        assert.deepEqual(statuses, [204, ...Array(clients - 1).fill(404)], `${kind}: ${JSON.stringify(statuses)}`);
      }),
      { numRuns: 16 },
    );
  });

  it('answers a create naming a resource removed at the same moment with 201 or 404, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('ssh_key', 'vpc'), fc.integer({ min: 0, max: 3 }), async (field, delay) => {
        const ref = field === 'ssh_key' ? await make['ssh key']!() : await make.vpc!();
        const removing = (async () => {
          await new Promise((resolve) => setTimeout(resolve, delay));
          return nubis.request('DELETE', (field === 'ssh_key' ? removePath['ssh key'] : removePath.vpc) + ref, {
            token: account.token,
          });
        })();
        const creating = nubis.request('POST', '/v1.3/server/create', {
          token: account.token,
          body: { ...standardServer, hostname: 'race.example.com', [field]: ref },
        });
        const [removed, created] = await Promise.all([removing, creating]);
        assert.ok([201, 404].includes(created.status), `create: ${created.status} ${JSON.stringify(created.body)}`);
        // A VPC with a member is not removed (409); a key may go while a server keeps its id.
        assert.ok([204, 409].includes(removed.status), `remove: ${removed.status} ${JSON.stringify(removed.body)}`);
        if (created.status === 201)
          assert.equal(
            (await nubis.request('DELETE', `/v1.3/server/remove/${created.body.id}`, { token: account.token })).status,
            204,
          );
      }),
      { numRuns: 16 },
    );
  });

  it('survives many clients doing mixed actions at once without a 5xx', async () => {
    const ids = [serverId, (await deployServer(nubis, account.token)).id];
    const fips: number[] = [];
    for (let i = 0; i < 2; i++) {
      const fip = await nubis.request('POST', '/v1.3/floating_ip/create', {
        token: account.token,
        body: { region_id: 101 },
      });
      fips.push(fip.body.id);
    }
    const vpc = await nubis.request('POST', '/v1.3/vpc/create', {
      token: account.token,
      body: { name: 'mixed', region_id: 101 },
    });
    const serverOf = fc.constantFrom(...ids);
    const action = fc.oneof(
      serverOf.map((id) => ['PATCH', '/v1.3/server/reboot', { server_id: id }] as const),
      serverOf.map((id) => ['PATCH', '/v1.3/server/start', { server_id: id }] as const),
      serverOf.map((id) => ['PATCH', '/v1.3/server/stop', { server_id: id }] as const),
      serverOf.map((id) => ['POST', '/v1.3/snapshot/create', { server_id: id, name: 'm' }] as const),
      serverOf.map((id) => ['PUT', '/v1.3/rdns/put', { server_id: id, rdns: 'host.example.com' }] as const),
      serverOf.map(
        (id) => ['PUT', `/v1.3/option/set/${id}`, { name: 'bw_overage_policy', value: 'throttle' }] as const,
      ),
      fc
        .tuple(serverOf, fc.constantFrom(...fips), fc.boolean())
        .map(
          ([id, ip, on]) =>
            ['PATCH', `/v1.3/floating_ip/${on ? 'attach' : 'detach'}`, { server_id: id, ip_id: ip }] as const,
        ),
      fc
        .tuple(serverOf, fc.boolean())
        .map(
          ([id, on]) =>
            ['PATCH', `/v1.3/vpc/${on ? 'attach' : 'detach'}`, { server_id: id, vpc_id: vpc.body.uuid }] as const,
        ),
      fc.constant(['POST', '/v1.3/floating_ip/create', { region_id: 101 }] as const),
      fc.constant(['POST', '/v1.3/vpc/create', { name: 'm', region_id: 101 }] as const),
      fc.constant(['POST', '/v1.3/account/token_create', { name: 'm' }] as const),
      fc.constant(['PATCH', '/v1.3/account/update', { dark_mode: true }] as const),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 8, maxLength: 24 }), async (actions) => {
        const answers = await Promise.all(
          actions.map(([method, path, body]) => nubis.request(method, path, { token: account.token, body })),
        );
        for (const [i, answer] of answers.entries())
          assert.ok(answer.status < 500, `${actions[i]![1]}: ${answer.status} ${JSON.stringify(answer.body)}`);
        // One server removed while the others act on it; a fresh one takes its place.
        const doomed = ids.shift()!;
        const [removed, ...others] = await Promise.all([
          nubis.request('DELETE', `/v1.3/server/remove/${doomed}`, { token: account.token }),
          nubis.request('PATCH', '/v1.3/floating_ip/attach', {
            token: account.token,
            body: { server_id: doomed, ip_id: fips[0] },
          }),
          nubis.request('PATCH', '/v1.3/vpc/attach', {
            token: account.token,
            body: { server_id: doomed, vpc_id: vpc.body.uuid },
          }),
          nubis.request('PATCH', '/v1.3/server/reboot', { token: account.token, body: { server_id: doomed } }),
        ]);
        assert.equal(removed.status, 204, JSON.stringify(removed.body));
        for (const other of others) assert.ok(other.status < 500, `${other.status} ${JSON.stringify(other.body)}`);
        ids.push((await orderServer(nubis, account.token, {})).id);
      }),
      { numRuns: 10 },
    );
  });

  it('wrote no error-level log line (no deadlock, no foreign-key failure)', () => {
    assert.deepEqual(nubis.errorLog(), []);
  });
});
