// The plan's disk on a cluster (npm run test:cluster): a server on a member other than the one
// Nubis talks to has a root disk of its plan's size on that member's quota pool — a disk filled
// past it stops there (issue 35's promise, kept on every member, not only on a single host).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { awaitPower, publicAddress, sshEventually } from '../lxd/support.ts';
import {
  CLUSTER_REGION,
  CLUSTER_SMALL_PLAN,
  CLUSTER_SMALL_PLAN_DISK_GB,
  clusterStoragePool,
  clusterSuite,
  locationOf,
} from './support.ts';
import { memberNames } from './members.ts';

const { nubis, alice, lxd, key, addKey, createServer } = await clusterSuite({ credit: 500 });

test("a server's root disk on a non-first member is its plan's size: a fill stops there", async () => {
  const keyId = await addKey();
  // The scheduler puts each on the member with the fewest instances: within members' count, one is not the first.
  let far: { uuid: string; member: string } | undefined;
  for (let i = 0; i < memberNames.length && !far; i++) {
    const made = await createServer({
      region: CLUSTER_REGION,
      plan: CLUSTER_SMALL_PLAN,
      hostname: `fill-${i}.example.com`,
      label: `fill ${i}`,
      ssh_key: keyId,
    });
    await awaitPower(nubis, alice.token, made.uuid, 'running', 180);
    const member = await locationOf(lxd, made.uuid);
    if (member !== memberNames[0]) far = { uuid: made.uuid, member };
  }
  assert.ok(far, 'a server landed on a member other than the first');
  console.log(`# filling the disk of a server on ${far.member} (pool ${clusterStoragePool})`);

  const info = await awaitPower(nubis, alice.token, far.uuid, 'running', 60);
  const plan = CLUSTER_SMALL_PLAN_DISK_GB * 1024;
  const filled = await sshEventually(
    publicAddress(info),
    { key: key.path },
    `dd if=/dev/zero of=/fill bs=1M count=${plan + 512} 2>/dev/null; sync; du -m /fill | cut -f1; rm -f /fill`,
    90,
  );
  const written = Number(filled.stdout.trim());
  assert.ok(written > 0, filled.stderr);
  assert.ok(written <= plan, `${written} MiB written on a ${CLUSTER_SMALL_PLAN_DISK_GB} GB disk on ${far.member}`);
  const instance = await lxd.get<{ expanded_devices: Record<string, Record<string, string>> }>(
    `/1.0/instances/nubis-${far.uuid}`,
  );
  assert.equal(instance.expanded_devices.root?.pool, clusterStoragePool);
  assert.equal(instance.expanded_devices.root?.size, `${CLUSTER_SMALL_PLAN_DISK_GB}GiB`);
});
