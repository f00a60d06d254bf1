// Hosts on the real engine, not clustered: it is one host, named by its server_name, with the
// capacity its resources report; a server made there shows that host to the operator (the
// instance's location, or the one host of a single engine); a drain is refused (409: there is no
// other host); the emulator's host faults are not for a real engine. The cluster's drain, loss and
// recovery are `npm run test:cluster`'s.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonBody } from '../support/instance.ts';
import { awaitPower, eventually, lxdSuite } from './support.ts';

const METRICS_TOKEN = 'hosts-metrics-0123456789';
const { nubis, alice, lxd, createServer } = await lxdSuite({ env: { METRICS_TOKEN } });

test('a single engine is one host; its servers show it; a drain is refused', async () => {
  const server = (await lxd.get<{ environment: { server_name: string } }>('/1.0')).environment.server_name;
  const listed = await nubis.admin('GET', '/admin/hosts');
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  assert.equal(listed.body.hosts.length, 1);
  const [host] = listed.body.hosts as JsonBody[];
  assert.equal(host.name, server);
  assert.equal(host.status, 'online');
  assert.ok(host.capacity.vcpus > 0 && host.capacity.memory_bytes > 0, JSON.stringify(host.capacity));

  const uuid = (await createServer({ hostname: 'hosted.example.com', label: 'hosted' })).uuid as string;
  await awaitPower(nubis, alice.token, uuid, 'running');
  // Reconciliation (every second) reports the host of the machine.
  await eventually('the host shown', 15, async () => {
    const seen = await nubis.admin('GET', `/admin/servers/${uuid}`);
    return seen.body.host === server ? true : undefined;
  });
  const after = (await nubis.admin('GET', '/admin/hosts')).body.hosts[0];
  assert.ok(after.servers >= 1 && after.used.vcpus >= 1, JSON.stringify(after));
  const metrics = await (
    await fetch(`${nubis.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  assert.match(metrics, new RegExp(`^nubis_host_up\\{host="${server}"\\} 1$`, 'm'));

  const drain = await nubis.admin('POST', `/admin/hosts/${server}/drain`);
  assert.equal(drain.status, 409, JSON.stringify(drain.body));
  assert.match(JSON.stringify(drain.body), /single host/);
});
