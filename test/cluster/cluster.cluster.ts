// Servers on an LXD cluster of three members (npm run test:cluster): created through Nubis's API
// they land on more than one member; each answers SSH at its public address from the host (the
// uplink every member shares); two servers of one VPC on different members reach each other on
// their private addresses over the VPC's tunnel, and a server outside it cannot; the console and
// rescue mode work on a server of a member that is not the one Nubis talks to.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import WebSocket from 'ws';
import { awaitPower, eventually, privateAddress, publicAddress, ssh, sshEventually } from '../lxd/support.ts';
import { CLUSTER_REGION, clusterSuite, locationOf } from './support.ts';
import { clusterVpcNetwork } from '../../src/compute/lxd-engine.ts';
import { memberNames } from './members.ts';

const vpcNetworks: string[] = [];
const { nubis, alice, lxd, key, addKey, createServer } = await clusterSuite({
  credit: 500,
  cleanUp: async () => {
    for (const network of vpcNetworks) await lxd.call('DELETE', `/1.0/networks/${network}`).catch(() => {});
  },
});

async function create(body: Record<string, unknown>): Promise<string> {
  return (await createServer({ region: CLUSTER_REGION, ...body })).uuid;
}

const bearer = (token: string) => `bearer.${Buffer.from(token).toString('base64url')}`;

test(`servers on a cluster of ${memberNames.length} members`, async (t) => {
  const vpc = await nubis.request('POST', '/v1.3/vpc/create', {
    token: alice.token,
    body: { region_id: CLUSTER_REGION, name: 'net' },
  });
  assert.equal(vpc.status, 201, JSON.stringify(vpc.body));
  vpcNetworks.push(clusterVpcNetwork(vpc.body.uuid));
  const ssh_key = await addKey();
  // One after the other: each lands where the scheduler finds the fewest instances.
  const a = await create({ hostname: 'a.example.com', label: 'a', vpc: vpc.body.uuid, ssh_key });
  await awaitPower(nubis, alice.token, a, 'running', 180);
  const b = await create({ hostname: 'b.example.com', label: 'b', vpc: vpc.body.uuid, ssh_key });
  await awaitPower(nubis, alice.token, b, 'running', 180);
  const c = await create({ hostname: 'c.example.com', label: 'c', ssh_key });
  const servers = [a, b, c];
  const infos = await Promise.all(servers.map((uuid) => awaitPower(nubis, alice.token, uuid, 'running', 180)));
  const hosts = await Promise.all(servers.map((uuid) => locationOf(lxd, uuid)));
  console.log(`# ${memberNames.length} members; servers on ${hosts.join(', ')}`);

  await t.test('the servers land on more than one member, each in the cluster group', () => {
    assert.ok(new Set(hosts).size > 1, `hosts: ${hosts.join(', ')}`);
    assert.notEqual(hosts[0], hosts[1], 'the two VPC members are on different members');
    for (const host of hosts) assert.ok(memberNames.includes(host), host);
  });

  await t.test('each answers SSH at its public address from the host', async () => {
    for (const [index, info] of infos.entries()) {
      const answered = await sshEventually(publicAddress(info), { key: key.path }, 'hostname', 90);
      assert.equal(answered.stdout.trim(), `${'abc'[index]}.example.com`);
    }
  });

  await t.test('the VPC spans members: its servers reach each other, an outsider does not', async () => {
    const aPublic = publicAddress(infos[0]!);
    const bPrivate = privateAddress(infos[1]!);
    // TTL 1: the probe never leaves the VPC's own segment.
    const member = await sshEventually(aPublic, { key: key.path }, `ping -c 1 -W 2 -t 1 ${bPrivate}`, 60);
    assert.equal(member.code, 0);
    const outsider = ssh(publicAddress(infos[2]!), { key: key.path }, `ping -c 1 -W 2 -t 1 ${bPrivate}`);
    assert.notEqual(outsider.code, 0, 'a server outside the VPC cannot reach a member');
  });

  // A server on a member other than the one Nubis talks to (the first).
  const farIndex = hosts.findIndex((host) => host !== memberNames[0]);
  const far = servers[farIndex]!;
  const farInfo = infos[farIndex]!;

  await t.test(`the console works on a server of ${hosts[farIndex]}`, async () => {
    const socket = new WebSocket(`${nubis.url.replace(/^http/, 'ws')}/v1.3/server/console/${far}`, [
      'nubis.console',
      bearer(alice.token),
    ]);
    let received = '';
    socket.on('message', (data: Buffer) => {
      received += data.toString('utf8');
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    try {
      // Enter every 3 s (binary, as the console sends keys): a getty that was not watching prints its prompt again.
      let pressed = 0;
      await eventually('a login prompt', 45, async () => {
        if (/login:/.test(received)) return true;
        if (Date.now() - pressed > 3000) {
          pressed = Date.now();
          socket.send(Buffer.from('\r'), { binary: true });
        }
        return undefined;
      });
    } finally {
      socket.close();
    }
  });

  await t.test(`rescue mode works on a server of ${hosts[farIndex]}`, async () => {
    const address = publicAddress(farInfo);
    await sshEventually(address, { key: key.path }, 'echo kept > /root/note && sync', 60);
    const on = await nubis.request('POST', '/v1.3/server/rescue', {
      token: alice.token,
      body: { server_id: far, enable: true },
    });
    assert.equal(on.status, 202, JSON.stringify(on.body));
    const rescued = await eventually('the rescue system answers', 180, async () => {
      const result = ssh(address, { key: key.path }, 'hostname; cat /mnt/root/note');
      return result.code === 0 && result.stdout.startsWith('rescue') ? result : undefined;
    });
    assert.deepEqual(rescued.stdout.trim().split('\n'), ['rescue', 'kept']);
    const off = await nubis.request('POST', '/v1.3/server/rescue', {
      token: alice.token,
      body: { server_id: far, enable: false },
    });
    assert.equal(off.status, 202, JSON.stringify(off.body));
    await eventually('the server again', 180, async () => {
      const result = ssh(address, { key: key.path }, 'hostname');
      return result.code === 0 && result.stdout.trim().endsWith('.example.com') ? true : undefined;
    });
  });
});
