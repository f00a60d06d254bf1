// The desired machines of a whole fleet (the real engine's reconciliation reads every server's):
// past the number of values one statement may bind (SQLite 32,766; PostgreSQL 65,535) they are
// still read, each with its own rows.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestInstance } from '../../test/support/instance.ts';
import { createAccount } from '../../test/support/accounts.ts';
import { deployServer, ecdsaPublicKey, storeCopies } from '../../test/support/servers.ts';
import { desiredMachines } from './desired-machine.ts';

// 70,000 stored servers take minutes to write on a loaded machine (201 s at load ~20): a hang guard of its own.
test('the desired machines of 70,000 servers are read, the last with its own key and address', {
  timeout: 600_000,
}, async () => {
  const nubis = await startTestInstance();
  try {
    const owner = await createAccount(nubis, { credit: 1000 });
    const publicKey = ecdsaPublicKey();
    const key = await nubis.request('POST', '/v1.3/ssh_key/create', {
      token: owner.token,
      body: { name: 'fleet', public_key: publicKey },
    });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    const template = await deployServer(nubis, owner.token);
    const last = await deployServer(nubis, owner.token, { ssh_key: key.body.uuid, label: 'last' });
    const copies = await storeCopies(nubis, template.uuid, 70_000);

    const specs = await desiredMachines(nubis.running.ctx, nubis.running.ctx.db, [...copies, template.uuid, last.uuid]);
    assert.equal(specs.size, copies.length + 2);
    const spec = specs.get(last.uuid)!;
    assert.equal(spec.sshPublicKey, publicKey);
    assert.ok(spec.ipv4, JSON.stringify(spec));
    assert.equal(specs.get(copies.at(-1)!)!.sshPublicKey, null);
  } finally {
    await nubis.close();
  }
});

test("a spec unseals its server's root password only when an engine reads it", async () => {
  const nubis = await startTestInstance();
  try {
    const owner = await createAccount(nubis, { credit: 1000 });
    const server = await deployServer(nubis, owner.token);
    const { ctx } = nubis.running;
    let unsealed = 0;
    const secrets = {
      ...ctx.secrets,
      decrypt: (sealed: string) => {
        unsealed++;
        return ctx.secrets.decrypt(sealed);
      },
    };
    // A full read compares every server's spec and never its password (issue 38).
    const spec = (await desiredMachines({ ...ctx, secrets }, ctx.db, [server.uuid])).get(server.uuid)!;
    assert.equal(unsealed, 0);
    assert.equal(spec.rootPassword(), (server.info as { password: string }).password);
    assert.equal(unsealed, 1);
  } finally {
    await nubis.close();
  }
});
