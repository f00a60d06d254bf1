// Hosts of the cluster through the operator's API (npm run test:cluster): a member drained moves its
// servers to the others (LXD's evacuation), each with a `server.moved` event, answering at the same
// address with its data; restored, it takes them back. A member stopped hard shows its servers lost
// (HostLost) within a reconciliation, with an event and a mail; one is recovered on another member
// from its snapshot, which every member keeps, and answers at its address again. The lost member is
// put back into the cluster afterwards, so the next run reuses the cluster.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { mailsTo } from '../support/accounts.ts';
import type { JsonBody } from '../support/instance.ts';
import { awaitPower, eventually, publicAddress, sshEventually } from '../lxd/support.ts';
import { CLUSTER_REGION, clusterSuite, locationOf } from './support.ts';
import { lxc, memberNames, replaceMember } from './members.ts';

const { nubis, alice, lxd, key, addKey, createServer } = await clusterSuite({ credit: 500 });
let lostMember: string | null = null;

// After the suite's own clean-up (hooks run in the order they are added): its servers removed, Nubis closed.
after(async () => {
  if (lostMember) await replaceMember(lostMember);
});

async function events(type: string, resource: string): Promise<JsonBody[]> {
  const answer = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.events.filter((e: JsonBody) => e.type === type && e.resource.uuid === resource);
}

async function host(name: string): Promise<JsonBody> {
  const listed = await nubis.admin('GET', '/admin/hosts');
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  const found = listed.body.hosts.find((h: JsonBody) => h.name === name);
  assert.ok(found, `host ${name} listed: ${JSON.stringify(listed.body)}`);
  return found;
}

test(`drain, restore, a lost member and a recovery on ${memberNames.length} members`, async (t) => {
  const keyId = await addKey();
  const servers: { uuid: string; address: string; host: string }[] = [];
  for (const label of ['p', 'q', 'r']) {
    const made = await createServer({
      hostname: `${label}.example.com`,
      label,
      region: CLUSTER_REGION,
      ssh_key: keyId,
    });
    const info = await awaitPower(nubis, alice.token, made.uuid, 'running', 180);
    const address = publicAddress(info);
    await sshEventually(address, { key: key.path }, `echo ${label} > /root/marker && sync`, 90);
    servers.push({ uuid: made.uuid, address, host: await locationOf(lxd, made.uuid) });
  }
  // Nubis talks to the first member: the drained and the lost one are others.
  const others = memberNames.slice(1).filter((m) => servers.some((s) => s.host === m));
  assert.ok(others.length >= 2, `servers on two members besides the first: ${servers.map((s) => s.host).join(', ')}`);
  const [drained, lost] = others as [string, string];

  await t.test(`draining ${drained} moves its servers, which answer at their addresses`, async () => {
    const moving = servers.filter((s) => s.host === drained);
    const drain = await nubis.admin('POST', `/admin/hosts/${drained}/drain`);
    assert.equal(drain.status, 202, JSON.stringify(drain.body));
    await eventually(`${drained} evacuated`, 300, async () =>
      (await host(drained)).status === 'evacuated' ? true : undefined,
    );
    for (const server of moving) {
      // The member shows evacuated as its evacuation begins: the machines move one after the other.
      const now = await eventually('the machine off the drained member', 300, async () => {
        const location = await locationOf(lxd, server.uuid);
        return location !== drained ? location : undefined;
      });
      const moved = await eventually('server.moved', 60, async () => (await events('server.moved', server.uuid))[0]);
      assert.equal(moved.data.from, drained);
      assert.equal(moved.data.to, now);
      const seen = await nubis.admin('GET', `/admin/servers/${server.uuid}`);
      assert.equal(seen.body.host, now);
      const answered = await sshEventually(server.address, { key: key.path }, 'cat /root/marker', 90);
      assert.equal(answered.stdout.trim(), 'pqr'[servers.indexOf(server)], 'its data moved with it');
      console.log(`# evacuation: ${server.uuid} moved ${drained} -> ${now}, answers at ${server.address}`);
    }
  });

  await t.test(`restoring ${drained} brings its servers back`, async () => {
    const restore = await nubis.admin('POST', `/admin/hosts/${drained}/restore`);
    assert.equal(restore.status, 202, JSON.stringify(restore.body));
    await eventually(`${drained} online`, 300, async () =>
      (await host(drained)).status === 'online' ? true : undefined,
    );
    for (const server of servers.filter((s) => s.host === drained)) {
      await eventually('back on its member', 300, async () =>
        (await locationOf(lxd, server.uuid)) === drained ? true : undefined,
      );
      await sshEventually(server.address, { key: key.path }, 'cat /root/marker', 90);
    }
  });

  await t.test(`${lost} stopped hard: its server shows lost, and is recovered from its snapshot`, async () => {
    const victim = servers.find((s) => s.host === lost)!;
    const snap = await nubis.request('POST', '/v1.3/snapshot/create', {
      token: alice.token,
      body: { name: 'before-loss', server_id: victim.uuid },
    });
    assert.equal(snap.status, 201, JSON.stringify(snap.body));
    await eventually('snapshot completed', 180, async () => {
      const list = await nubis.request('GET', '/v1.3/snapshot/list', { token: alice.token });
      return list.body.snapshots.find((s: JsonBody) => s.uuid === snap.body.uuid)?.status === 'completed'
        ? true
        : undefined;
    });
    await awaitPower(nubis, alice.token, victim.uuid, 'running', 120);

    lostMember = lost;
    lxc(['stop', '--force', lost]);
    const shown = await eventually('the server lost', 180, async () => {
      const seen = await nubis.admin('GET', `/admin/servers/${victim.uuid}`);
      const present = seen.body.conditions.find((c: JsonBody) => c.type === 'MachinePresent');
      return present?.status === 'false' && present.reason === 'HostLost' ? seen.body : undefined;
    });
    assert.equal(shown.lost, true);
    await eventually('server.lost', 30, async () => (await events('server.lost', victim.uuid))[0]);
    assert.ok(
      (await mailsTo(nubis, alice.email)).some((m) => m.text.includes(victim.uuid) || /lost|failed/i.test(m.subject)),
    );
    // The engine keeps a lost member's instances until the operator removes the member.
    lxc(['exec', memberNames[0]!, '--', 'lxc', 'cluster', 'remove', '--force', lost], 'yes\n');

    const recover = await nubis.admin('POST', `/admin/servers/${victim.uuid}/recover`, { backup: snap.body.uuid });
    assert.equal(recover.status, 202, JSON.stringify(recover.body));
    await awaitPower(nubis, alice.token, victim.uuid, 'running', 300);
    const now = await locationOf(lxd, victim.uuid);
    assert.notEqual(now, lost);
    const answered = await sshEventually(victim.address, { key: key.path }, 'cat /root/marker', 120);
    assert.equal(answered.stdout.trim(), 'pqr'[servers.indexOf(victim)], 'the snapshot’s data');
    await eventually('server.recovered', 30, async () => (await events('server.recovered', victim.uuid))[0]);
    console.log(`# lost: ${lost} stopped; ${victim.uuid} recovered on ${now} from snapshot ${snap.body.uuid}`);
  });
});
