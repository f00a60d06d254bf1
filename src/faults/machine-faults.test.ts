// The emulator's machine faults (issue 36): the operator makes a server's machine lost, its
// create given up or its engine unreachable, and the owner sees exactly what a real engine's report shows — the
// conditions, the power, the event and the mail — and recovers as with a real engine.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, mailsTo, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, orderServer, SETTLE_SECONDS, serverInfo } from '../../test/support/servers.ts';

let nubis: TestInstance;
let alice: TestAccount;

const METRICS_TOKEN = 'metrics-token-0123456789';

before(async () => {
  nubis = await startTestInstance({ METRICS_TOKEN });
  alice = await createAccount(nubis);
});
after(() => nubis.close());

type Condition = { type: string; status: string; reason: string; message: string; since: string };
const condition = (info: { conditions: Condition[] }, type: string) => info.conditions.find((c) => c.type === type);

async function inject(server: string | number, fault: string) {
  const answer = await nubis.admin('POST', '/admin/faults/machines', { server, fault });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body as { server: string; fault: string };
}

/** How many of the account's machines are billed now (open server items). */
async function machinesBilled(): Promise<number> {
  const list = await nubis.request('GET', '/v1.3/invoice/list', { token: alice.token });
  assert.equal(list.status, 200);
  return (list.body.invoices as { active: number; resource_type: string }[]).filter(
    (item) => item.active === 1 && item.resource_type === 'server',
  ).length;
}

/** The nubis_servers gauge by state, as scraped. */
async function serversGauge(): Promise<Record<string, number>> {
  const answer = await fetch(`${nubis.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(answer.status, 200);
  const text = await answer.text();
  return Object.fromEntries(
    [...text.matchAll(/^nubis_servers\{state="([a-z]+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]),
  );
}

/** The owner's servers the operator's list finds with `power=`. */
async function foundByPower(owner: TestAccount, power: string): Promise<string[]> {
  const answer = await nubis.admin('GET', `/admin/servers?account=${owner.id}&power=${power}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return (answer.body.servers as { uuid: string }[]).map((s) => s.uuid);
}

/** Reinstalls the server (as `token`) and lets the emulator settle: what the server shows then. */
async function reinstalled(token: string, uuid: string) {
  const reinstall = await nubis.request('POST', '/v1.3/server/reinstall', { token, body: { server_id: uuid } });
  assert.equal(reinstall.status, 202, JSON.stringify(reinstall.body));
  await nubis.advance(SETTLE_SECONDS);
  return serverInfo(nubis, token, uuid);
}

/**
 * The faults that leave a server without its machine, and what tells them apart: the reason on
 * MachinePresent and Degraded, how the server came to be (a lost machine ran; a create given up
 * never did), and whether the operator sees it lost (a machine never made was not).
 */
const withoutMachine = [
  { fault: 'machine_lost', reason: 'InstanceMissing', make: deployServer, lost: true },
  { fault: 'create_failed', reason: 'CreateFailed', make: orderServer, lost: false },
] as const;

describe('machine faults', () => {
  test('a server without faults shows no conditions and its power', async () => {
    const server = await deployServer(nubis, alice.token);
    const info = await serverInfo(nubis, alice.token, server.uuid);
    assert.deepEqual(info.conditions, []);
    assert.equal(info.power, 'running');
  });

  for (const { fault, reason, make, lost } of withoutMachine)
    test(`${fault}: stopped, ${reason} on MachinePresent and Degraded, unbilled; a reinstall brings it back, billed`, async () => {
      const label = fault.replace('_', '-');
      const server = await make(nubis, alice.token, { label, hostname: `${label}.example.com` });
      const billedBefore = await machinesBilled();
      assert.deepEqual(await inject(server.uuid, fault), { server: server.uuid, fault });

      const gone = await serverInfo(nubis, alice.token, server.uuid);
      assert.equal(gone.power, 'stopped');
      assert.deepEqual(
        { ...condition(gone, 'MachinePresent'), message: undefined, since: undefined },
        { type: 'MachinePresent', status: 'false', reason, message: undefined, since: undefined },
      );
      assert.match(condition(gone, 'MachinePresent')!.since, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      assert.equal(condition(gone, 'EngineReachable')?.status, 'true');
      assert.equal(condition(gone, 'Degraded')?.status, 'true');
      assert.equal(condition(gone, 'Degraded')?.reason, reason);
      const seen = await nubis.admin('GET', `/admin/servers/${server.uuid}`);
      assert.equal(seen.body.lost, lost);
      assert.equal(seen.body.power, 'stopped');
      // No machine exists to charge for (its backups and addresses still are billed).
      assert.equal(await machinesBilled(), billedBefore - 1);

      const back = await reinstalled(alice.token, server.uuid);
      assert.equal(back.power, 'running');
      assert.equal(condition(back, 'MachinePresent')?.status, 'true');
      assert.equal(condition(back, 'Degraded')?.status, 'false');
      assert.equal((await nubis.admin('GET', `/admin/servers/${server.uuid}`)).body.lost, false);
      // Billing resumed once, with the action that made the new disk.
      assert.equal(await machinesBilled(), billedBefore);
    });

  test('machine_lost: told once, by an event and a mail; the actions needing the machine are refused', async () => {
    const server = await deployServer(nubis, alice.token, { label: 'doomed', hostname: 'doomed.example.com' });
    // Named by its id as well as by its uuid.
    assert.deepEqual(await inject(server.id, 'machine_lost'), { server: server.uuid, fault: 'machine_lost' });

    const events = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
    const told = events.body.events.filter(
      (e: { type: string; resource: { uuid: string } }) => e.type === 'server.lost' && e.resource.uuid === server.uuid,
    );
    assert.equal(told.length, 1, 'one server.lost event');
    const mails = (await mailsTo(nubis, alice.email)).filter((m) => m.subject.includes('doomed is lost'));
    assert.equal(mails.length, 1, 'one mail');
    assert.match(mails[0]!.text, /restore a backup or snapshot, rebuild or reinstall/);

    // Told once: the same report again changes nothing.
    await inject(server.uuid, 'machine_lost');
    const again = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
    assert.equal(again.body.events.length, events.body.events.length);

    // Actions that need the machine are refused (a reinstall, which makes a new disk, is not: above).
    for (const command of ['start', 'stop', 'reboot']) {
      const refused = await nubis.request('PATCH', `/v1.3/server/${command}`, {
        token: alice.token,
        body: { server_id: server.uuid },
      });
      assert.equal(refused.status, 409, `${command}: ${JSON.stringify(refused.body)}`);
      assert.match(JSON.stringify(refused.body), /machine is lost/);
    }
    const snapshot = await nubis.request('POST', '/v1.3/snapshot/create', {
      token: alice.token,
      body: { name: 'nothing', server_id: server.uuid },
    });
    assert.equal(snapshot.status, 409);
  });

  test('create_failed: told as the real engine tells it, with no loss; it stays so; given up again, removed', async () => {
    const server = await orderServer(nubis, alice.token, { label: 'unmade', hostname: 'unmade.example.com' });
    assert.equal((await serverInfo(nubis, alice.token, server.uuid)).power, 'provisioning');
    await inject(server.uuid, 'create_failed');

    // At once, as when the engine's job gives up: the transition ends with the engine's words.
    const present = condition(await serverInfo(nubis, alice.token, server.uuid), 'MachinePresent')!;
    assert.match(present.message, /could not make this server's disk/);
    assert.match(present.message, /reinstall, rebuild or restore it to try again, or remove it/);
    const seen = await nubis.admin('GET', `/admin/servers/${server.uuid}`);
    assert.match(seen.body.engine_error, /^provisioning failed: .*fault API/);
    // Told by the event that ends the transition, with the error; no server.lost, no mail of loss.
    const events = (await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`)).body.events as {
      type: string;
      resource: { uuid: string };
      data: { error?: string };
    }[];
    const ours = events.filter((e) => e.resource.uuid === server.uuid);
    assert.equal(ours.filter((e) => e.type === 'server.lost').length, 0);
    assert.equal(ours.filter((e) => e.type === 'server.power' && e.data.error).length, 1, JSON.stringify(ours));
    assert.equal((await mailsTo(nubis, alice.email)).filter((m) => m.subject.includes('unmade')).length, 0);

    // Reconciliation-free emulator: it stays so; the actions needing a machine are refused.
    await nubis.advance(SETTLE_SECONDS);
    assert.equal(
      condition(await serverInfo(nubis, alice.token, server.uuid), 'MachinePresent')?.reason,
      'CreateFailed',
    );
    const start = await nubis.request('PATCH', '/v1.3/server/start', {
      token: alice.token,
      body: { server_id: server.uuid },
    });
    assert.equal(start.status, 409, JSON.stringify(start.body));

    // Made by a reinstall, given up again, then removed: the way out without a machine.
    assert.equal((await reinstalled(alice.token, server.uuid)).power, 'running');
    await inject(server.uuid, 'create_failed');
    const removed = await nubis.request('DELETE', `/v1.3/server/remove/${server.uuid}`, { token: alice.token });
    assert.equal(removed.status, 204, JSON.stringify(removed.body));
    const gone = await nubis.request('GET', `/v1.3/server/info/${server.uuid}`, { token: alice.token });
    assert.equal(gone.status, 404);
  });

  test('engine_unreachable: power unknown while it lasts, actions still accepted, back when removed', async () => {
    const server = await deployServer(nubis, alice.token);
    await inject(server.uuid, 'engine_unreachable');
    const silent = await serverInfo(nubis, alice.token, server.uuid);
    assert.equal(silent.power, 'unknown');
    assert.equal(condition(silent, 'EngineReachable')?.status, 'false');
    assert.equal(condition(silent, 'EngineReachable')?.reason, 'EngineUnreachable');

    const stop = await nubis.request('PATCH', '/v1.3/server/stop', {
      token: alice.token,
      body: { server_id: server.uuid },
    });
    assert.equal(stop.status, 202, JSON.stringify(stop.body));
    assert.equal((await serverInfo(nubis, alice.token, server.uuid)).power, 'stopping');

    const removed = await nubis.admin('DELETE', `/admin/faults/machines/${server.uuid}`);
    assert.equal(removed.status, 204);
    await nubis.advance(SETTLE_SECONDS);
    const back = await serverInfo(nubis, alice.token, server.uuid);
    assert.equal(back.power, 'stopped');
    assert.equal(condition(back, 'EngineReachable')?.status, 'true');
  });

  // The gauge and the operator's filter read the power the API shows, not the power asked for.
  test('the nubis_servers gauge and the power= filter count a lost machine and a silent engine as shown', async () => {
    const owner = await createAccount(nubis);
    const lost = await deployServer(nubis, owner.token);
    const silent = await deployServer(nubis, owner.token);
    const before = await serversGauge();
    await inject(lost.uuid, 'machine_lost');
    await inject(silent.uuid, 'engine_unreachable');

    assert.equal((await serverInfo(nubis, owner.token, lost.uuid)).power, 'stopped');
    assert.equal((await serverInfo(nubis, owner.token, silent.uuid)).power, 'unknown');
    const after = await serversGauge();
    assert.equal(after.running, (before.running ?? 0) - 2);
    assert.equal(after.stopped, (before.stopped ?? 0) + 1);
    assert.equal(after.unknown, (before.unknown ?? 0) + 1);

    assert.deepEqual(await foundByPower(owner, 'stopped'), [lost.uuid]);
    assert.deepEqual(await foundByPower(owner, 'unknown'), [silent.uuid]);
    assert.deepEqual(await foundByPower(owner, 'running'), []);
    const account = await nubis.request('GET', '/v1.3/account/info', { token: owner.token });
    assert.equal(account.body.servers.running, 0, 'account/info counts no server running');
    // A transition under way is shown (and found) before any condition.
    const reinstall = await nubis.request('POST', '/v1.3/server/reinstall', {
      token: owner.token,
      body: { server_id: lost.uuid },
    });
    assert.equal(reinstall.status, 202, JSON.stringify(reinstall.body));
    assert.deepEqual(await foundByPower(owner, 'reinstalling'), [lost.uuid]);
    await nubis.advance(SETTLE_SECONDS);
    assert.deepEqual(await foundByPower(owner, 'running'), [lost.uuid]);
  });

  for (const { what, body, status, names } of [
    { what: 'an unknown fault', body: { server: 1, fault: 'melted' }, status: 400, names: /fault/ },
    { what: 'no server', body: { fault: 'machine_lost' }, status: 400, names: /server/ },
    {
      what: 'an unknown server',
      body: { server: '00000000-0000-4000-8000-000000000000', fault: 'machine_lost' },
      status: 404,
    },
  ])
    test(`${what} answers ${status}${names ? ' naming the field' : ''}`, async () => {
      const answer = await nubis.admin('POST', '/admin/faults/machines', body);
      assert.equal(answer.status, status, JSON.stringify(answer.body));
      if (names) assert.match(JSON.stringify(answer.body), names);
    });
});
