// Graceful power: a reboot asks the guest to shut down cleanly, so its processes get SIGTERM
// before the restart (the spec: "a graceful restart signal is sent"); a stop is the power-off
// button, the same rule; a guest that does not stop within COMPUTE_GRACEFUL_STOP_SECONDS is
// stopped by force, and the event that ends the transition says so.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonBody } from '../support/instance.ts';
import { awaitPower, eventually, lxdSuite, publicAddress, ssh, sshEventually } from './support.ts';

const { nubis, alice, lxd, createServer, power } = await lxdSuite({ env: { COMPUTE_GRACEFUL_STOP_SECONDS: '5' } });

async function powerEvent(uuid: string, after: string): Promise<JsonBody> {
  return eventually(`server.power after ${after}`, 30, async () => {
    const answer = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
    return answer.body.events.find(
      (e: JsonBody) => e.resource.uuid === uuid && e.type === 'server.power' && e.data.after === after,
    );
  });
}

test('reboot: a process that writes a marker on SIGTERM leaves it; a guest that ignores the shutdown is forced', async () => {
  const created = await createServer({ hostname: 'graceful.example.com', label: 'graceful' });
  const uuid = created.uuid as string;
  const running = await awaitPower(nubis, alice.token, uuid, 'running');
  const address = publicAddress(running);
  const auth = { password: running.info.password as string };
  await sshEventually(address, auth, 'true');

  // The test image's init ends at once after its SIGTERM to every process; as a real init does, it
  // gives them a moment from its next boot on (the first reboot below starts it so).
  const patched = ssh(
    address,
    auth,
    `sed -i 's/kill -TERM -1 2>\\/dev\\/null; exit 0/kill -TERM -1 2>\\/dev\\/null; sleep 2; exit 0/' /sbin/init && grep -c 'sleep 2; exit 0' /sbin/init`,
  );
  assert.equal(patched.stdout.trim(), '1', patched.stderr);
  await power(uuid, 'reboot');
  await powerEvent(uuid, 'rebooting');
  await awaitPower(nubis, alice.token, uuid, 'running');
  await sshEventually(address, auth, 'true');

  // A process that writes a marker when it gets SIGTERM (and outlives the SSH session: the image has no nohup).
  const started = ssh(
    address,
    auth,
    `rm -f /root/marker /root/term.pid; sh -c 'trap "" HUP; echo $$ > /root/term.pid; trap "echo terminated > /root/marker; exit 0" TERM; while :; do sleep 1 & wait $!; done' </dev/null >/dev/null 2>&1 &
     for i in 1 2 3 4 5; do [ -s /root/term.pid ] && break; sleep 1; done; kill -0 "$(cat /root/term.pid)" && echo running`,
  );
  assert.equal(started.stdout.trim(), 'running', `the process runs: ${started.stderr}`);
  const events = (await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`)).body.events.length;
  await power(uuid, 'reboot');
  const rebooted = await eventually('the second reboot ended', 60, async () => {
    const answer = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
    const found = (answer.body.events as JsonBody[]).filter(
      (e) => e.resource.uuid === uuid && e.type === 'server.power' && e.data.after === 'rebooting',
    );
    return answer.body.events.length > events && found.length >= 2 ? found : undefined;
  });
  assert.ok(
    rebooted.every((e) => e.data.forced === undefined),
    'a guest that stops cleanly is not forced',
  );
  await awaitPower(nubis, alice.token, uuid, 'running');
  const marker = await sshEventually(address, auth, 'cat /root/marker');
  assert.equal(marker.stdout.trim(), 'terminated', 'the process got SIGTERM before the restart');

  // A guest whose init ignores the clean shutdown (from its next boot): the stop is forced after the grace time.
  const deaf = ssh(
    address,
    auth,
    `sed -i "s/^trap .* PWR TERM INT$/trap '' PWR TERM INT/" /sbin/init && grep -c "^trap '' PWR" /sbin/init`,
  );
  assert.equal(deaf.stdout.trim(), '1', deaf.stderr);
  await power(uuid, 'reboot');
  await awaitPower(nubis, alice.token, uuid, 'running');
  await sshEventually(address, auth, 'true');
  await power(uuid, 'stop');
  const stopped = await powerEvent(uuid, 'stopping');
  assert.match(String(stopped.data.forced), /stopped by force/);
  const state = await lxd.get<{ status: string }>(`/1.0/instances/nubis-${uuid}/state`);
  assert.equal(state.status, 'Stopped');
});
