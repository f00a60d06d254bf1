// The engine unreachable during a create: the API still answers, the job retries, and the server
// becomes running (and reachable over SSH) once the engine is back; nothing is lost. Also the
// scenario the real suite runs on PostgreSQL (jobs claimed with FOR UPDATE SKIP LOCKED).

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  awaitPower,
  createRefused,
  EngineGate,
  eventually,
  lxdSuite,
  lxdUrl,
  publicAddress,
  sleep,
  sshEventually,
  startLxdInstance,
} from './support.ts';

const gate = new EngineGate(lxdUrl);
await gate.listen();
// Hooks run in the order they were added: the gate opens before the suite removes its server,
// and closes after its Nubis has.
after(() => {
  gate.open = true;
});
const { nubis, alice, createServer } = await lxdSuite({ env: { LXD_URL: gate.path, COMPUTE_JOB_ATTEMPTS: '30' } });
after(() => gate.close());

test('engine unreachable during create: the API answers, the job retries, the server runs once the engine is back', async () => {
  const created = await createServer({ hostname: 'patient.example.com', label: 'patient' });
  const uuid = created.uuid as string;
  assert.equal(created.power, 'provisioning');

  // The job tries, fails and retries while the engine cannot be reached.
  await eventually('two refused attempts', 30, async () => (gate.refused >= 2 ? true : undefined));
  await sleep(1000);
  const waiting = await nubis.request('GET', `/v1.3/server/info/${uuid}`, { token: alice.token });
  assert.equal(waiting.status, 200);
  assert.equal(waiting.body.power, 'provisioning');
  const list = await nubis.request('GET', '/v1.3/server/list', { token: alice.token });
  assert.ok(
    list.body.servers.some((s: { uuid: string }) => s.uuid === uuid),
    'the server is listed',
  );

  gate.open = true;
  const running = await awaitPower(nubis, alice.token, uuid, 'running', 120);
  const login = await sshEventually(publicAddress(running), { password: running.info.password }, 'hostname');
  assert.equal(login.stdout.trim(), 'patient.example.com');
});

test('a provisioning that finally fails settles stopped, with the reason shown to the operator', async () => {
  const closed = new EngineGate(lxdUrl);
  await closed.listen();
  const failing = await startLxdInstance({ LXD_URL: closed.path, COMPUTE_JOB_ATTEMPTS: '2' });
  try {
    const { uuid: doomed, settled } = await createRefused(failing, 'doomed.example.com');
    assert.equal(settled.uuid, doomed);
    const seen = await failing.admin('GET', `/admin/servers/${doomed}`);
    assert.equal(seen.status, 200);
    assert.match(seen.body.engine_error, /^provisioning failed after 2 attempts: engine .* unreachable/);
    assert.ok(closed.refused >= 2, 'both attempts reached for the engine');
  } finally {
    await failing.close();
    await closed.close();
  }
});
