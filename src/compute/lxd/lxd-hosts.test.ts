// The engine's hosts without an engine: what LXD's member list and resources become, a single
// engine as one host, and the member state actions posted for a drain and a restore.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LxdClient } from './lxd-client.ts';
import { LxdError } from './lxd-client.ts';
import { hostStatus, lxdHosts, setHostState } from './lxd-hosts.ts';

/** A client answering GETs from `answers` by path (an Error is thrown), recording the calls. */
function stubClient(answers: Record<string, unknown>) {
  const calls: { method: string; path: string; body?: unknown; wait?: number }[] = [];
  const client = {
    async get(path: string) {
      calls.push({ method: 'GET', path });
      const answer = answers[path];
      if (answer === undefined) throw new LxdError(404, `GET ${path}: not found`);
      if (answer instanceof Error) throw answer;
      return answer;
    },
    async run(method: string, path: string, options: { body?: unknown }, wait?: number) {
      calls.push({ method, path, body: options.body, wait });
      return null;
    },
  };
  return { client: client as unknown as LxdClient, calls };
}

const gib = 1024 ** 3;

test("LXD's member statuses in three words: anything but Online or Evacuated is offline", () => {
  assert.equal(hostStatus('Online'), 'online');
  assert.equal(hostStatus('Evacuated'), 'evacuated');
  assert.equal(hostStatus('Offline'), 'offline');
  assert.equal(hostStatus('Blocked'), 'offline');
});

test('a cluster: every member with its groups and capacity; an offline member is not asked for its resources', async () => {
  const { client, calls } = stubClient({
    '/1.0': { environment: { server_name: 'm1', server_clustered: true } },
    '/1.0/cluster/members?recursion=1': [
      { server_name: 'm1', status: 'Online', message: 'Fully operational', groups: ['default', 'fra'] },
      { server_name: 'm2', status: 'Evacuated', message: 'Unavailable due to maintenance', groups: ['fra'] },
      { server_name: 'm3', status: 'Offline', message: 'No heartbeat for 30s', groups: ['fra'] },
    ],
    '/1.0/resources?target=m1': { cpu: { total: 8 }, memory: { total: 16 * gib } },
    '/1.0/storage-pools/nubis/resources?target=m1': { space: { total: 100 * gib } },
    '/1.0/resources?target=m2': { cpu: { total: 4 }, memory: { total: 8 * gib } },
  });
  assert.deepEqual(await lxdHosts(client, 'nubis'), [
    {
      name: 'm1',
      status: 'online',
      message: 'Fully operational',
      groups: ['default', 'fra'],
      capacity: { vcpus: 8, memoryBytes: 16 * gib, diskBytes: 100 * gib },
    },
    {
      name: 'm2',
      status: 'evacuated',
      message: 'Unavailable due to maintenance',
      groups: ['fra'],
      // Its pool's size not reported: unknown, not zero.
      capacity: { vcpus: 4, memoryBytes: 8 * gib, diskBytes: null },
    },
    {
      name: 'm3',
      status: 'offline',
      message: 'No heartbeat for 30s',
      groups: ['fra'],
      capacity: { vcpus: 0, memoryBytes: 0, diskBytes: null },
    },
  ]);
  assert.equal(
    calls.some((call) => call.path.includes('target=m3')),
    false,
  );
});

test('a single engine is one host, named by its server_name', async () => {
  const { client } = stubClient({
    '/1.0': { environment: { server_name: 'box', server_clustered: false } },
    '/1.0/resources': { cpu: { total: 2 }, memory: { total: 4 * gib } },
  });
  assert.deepEqual(await lxdHosts(client, 'nubis'), [
    {
      name: 'box',
      status: 'online',
      message: 'Fully operational',
      groups: [],
      capacity: { vcpus: 2, memoryBytes: 4 * gib, diskBytes: null },
    },
  ]);
});

test("a drain and a restore are the member's state actions, waited for", async () => {
  const { client, calls } = stubClient({});
  await setHostState(client, 'm2', 'evacuate');
  await setHostState(client, 'm2', 'restore');
  assert.deepEqual(
    calls.map(({ method, path, body }) => ({ method, path, body })),
    [
      { method: 'POST', path: '/1.0/cluster/members/m2/state', body: { action: 'evacuate' } },
      { method: 'POST', path: '/1.0/cluster/members/m2/state', body: { action: 'restore' } },
    ],
  );
  assert.ok(calls.every((call) => (call.wait ?? 0) >= 600));
});
