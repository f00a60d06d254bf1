// Several hosts (issue 41) on the simulated driver, over HTTP: hosts as the driver reports them
// (SIM_HOSTS per region), servers placed on the one with most room and shown with their host, a
// host drained and restored (a server.moved event per machine), a host made offline (its servers
// lost with it: HostLost, one event and mail each), and a lost server recovered on another host
// from its snapshot.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, mailsTo, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, orderServer, serverInfo, SETTLE_SECONDS } from '../../test/support/servers.ts';
import { Writable } from 'node:stream';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitCodes, runCli } from '@nubis/cli';
import { ADMIN_TOKEN } from '../../test/support/instance.ts';
import { runBackupSweep } from '../snapshots/backup.sweep.ts';
import { copyFailed } from '../snapshots/copy-failure.ts';
import { transaction } from '../db/transaction.ts';

let nubis: TestInstance;
let alice: TestAccount;

const METRICS_TOKEN = 'metrics-token-0123456789';

before(async () => {
  nubis = await startTestInstance({
    METRICS_TOKEN,
    SERVERS_LIMIT: '100',
    SIM_HOSTS: '3',
    SIM_HOST_VCPUS: '16',
    SIM_HOST_MEMORY_GB: '64',
  });
  alice = await createAccount(nubis);
});
after(() => nubis.close());

interface Host {
  name: string;
  status: string;
  message: string;
  groups: string[];
  capacity: { vcpus: number; memory_bytes: number; disk_bytes: number | null };
  used: { vcpus: number; memory_bytes: number; disk_bytes: number };
  servers: number;
}

async function hosts(): Promise<Host[]> {
  const answer = await nubis.admin('GET', '/admin/hosts');
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.hosts;
}

async function hostOf(uuid: string): Promise<string | null> {
  const answer = await nubis.admin('GET', `/admin/servers/${uuid}`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.host;
}

async function eventsOf(uuid: string, type: string) {
  const answer = await nubis.admin('GET', `/admin/events?account=${alice.id}&limit=1000`);
  assert.equal(answer.status, 200);
  return (answer.body.events as { type: string; resource: { uuid: string }; data: Record<string, unknown> }[]).filter(
    (e) => e.type === type && e.resource.uuid === uuid,
  );
}

describe('hosts', () => {
  test('each region has SIM_HOSTS hosts; a new server lands on the one with most room and shows it', async () => {
    const before = await hosts();
    assert.ok(before.length >= 3, JSON.stringify(before.map((h) => h.name)));
    const first = before[0]!;
    assert.equal(first.status, 'online');
    assert.equal(first.capacity.vcpus, 16);
    assert.equal(first.capacity.memory_bytes, 64 * 1024 ** 3);

    const placed = [];
    for (let i = 0; i < 3; i++) placed.push(await deployServer(nubis, alice.token, { label: `spread ${i}` }));
    const names = await Promise.all(placed.map((s) => hostOf(s.uuid)));
    // The one with most room each time: three servers of one plan on three empty hosts spread out.
    assert.equal(new Set(names).size, 3, JSON.stringify(names));
    const after = await hosts();
    for (const name of names) {
      const host = after.find((h) => h.name === name)!;
      assert.ok(host.servers >= 1);
      assert.ok(host.used.vcpus >= 1 && host.used.memory_bytes > 0 && host.used.disk_bytes > 0);
    }
    const listed = await nubis.admin('GET', `/admin/servers?account=${alice.id}`);
    assert.ok((listed.body.servers as { host: string | null }[]).every((s) => typeof s.host === 'string'));
  });

  test('a drained host moves its servers (a server.moved event each) and takes none; restore brings them back', async () => {
    const server = await deployServer(nubis, alice.token, { label: 'mover' });
    const from = (await hostOf(server.uuid))!;
    const drained = await nubis.admin('POST', `/admin/hosts/${from}/drain`);
    assert.equal(drained.status, 202, JSON.stringify(drained.body));
    assert.equal(drained.body.status, 'evacuated');
    assert.equal(drained.body.servers, 0);
    const to = await hostOf(server.uuid);
    assert.notEqual(to, from);
    const moved = await eventsOf(server.uuid, 'server.moved');
    assert.equal(moved.length, 1);
    assert.deepEqual(moved[0]!.data, { from, to });
    assert.equal((await serverInfo(nubis, alice.token, server.uuid)).power, 'running');

    // A drained host takes no new machine.
    for (let i = 0; i < 3; i++) {
      const another = await orderServer(nubis, alice.token, { label: `while drained ${i}` });
      assert.notEqual(await hostOf(another.uuid), from);
    }

    const restored = await nubis.admin('POST', `/admin/hosts/${from}/restore`);
    assert.equal(restored.status, 202, JSON.stringify(restored.body));
    assert.equal(restored.body.status, 'online');
    assert.equal(await hostOf(server.uuid), from);
    assert.deepEqual((await eventsOf(server.uuid, 'server.moved')).at(-1)!.data, { from: to, to: from });
  });

  test('a host offline loses its servers (HostLost, one event and mail each); recovery remakes one elsewhere', async () => {
    const server = await deployServer(nubis, alice.token, { label: 'stranded', hostname: 'stranded.example.com' });
    const taken = await nubis.request('POST', '/v1.3/snapshot/create', {
      token: alice.token,
      body: { name: 'before the fall', server_id: server.uuid },
    });
    assert.equal(taken.status, 201, JSON.stringify(taken.body));
    await nubis.advance(SETTLE_SECONDS);
    const host = (await hostOf(server.uuid))!;
    const onHost = (await hosts()).find((h) => h.name === host)!.servers;

    const fault = await nubis.admin('POST', '/admin/faults/hosts', { host, fault: 'host_offline' });
    assert.equal(fault.status, 201, JSON.stringify(fault.body));
    assert.equal(fault.body.status, 'offline');

    const lost = await serverInfo(nubis, alice.token, server.uuid);
    assert.equal(lost.power, 'stopped');
    const present = (lost.conditions as { type: string; status: string; reason: string }[]).find(
      (c) => c.type === 'MachinePresent',
    );
    assert.deepEqual({ status: present?.status, reason: present?.reason }, { status: 'false', reason: 'HostLost' });
    assert.equal((await nubis.admin('GET', `/admin/servers/${server.uuid}`)).body.lost, true);
    assert.equal((await eventsOf(server.uuid, 'server.lost')).length, 1);
    const mails = (await mailsTo(nubis, alice.email)).filter((m) => m.subject.includes('stranded is lost'));
    assert.equal(mails.length, 1);
    assert.match(mails[0]!.subject, /host it ran on failed/);
    // Every server of the host is lost: the gauge counts them.
    const metrics = await fetch(`${nubis.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const text = await metrics.text();
    assert.match(text, new RegExp(`^nubis_servers_lost ${onHost}$`, 'm'));
    assert.match(text, new RegExp(`^nubis_host_up\\{host="${host}"\\} 0$`, 'm'));
    assert.match(text, new RegExp(`^nubis_host_servers\\{host="${host}"\\} ${onHost}$`, 'm'));

    // The same report again tells nothing new.
    await nubis.admin('POST', '/admin/faults/hosts', { host, fault: 'host_offline' });
    assert.equal((await eventsOf(server.uuid, 'server.lost')).length, 1);

    // A snapshot of another server does not recover this one; a server not lost is not recovered.
    const other = await deployServer(nubis, alice.token, { label: 'bystander' });
    const otherCopy = await nubis.request('POST', '/v1.3/snapshot/create', {
      token: alice.token,
      body: { name: 'other', server_id: other.uuid },
    });
    await nubis.advance(SETTLE_SECONDS);
    const wrong = await nubis.admin('POST', `/admin/servers/${server.uuid}/recover`, {
      backup: otherCopy.body.snapshot_id,
    });
    assert.equal(wrong.status, 409, JSON.stringify(wrong.body));
    const notLost = await nubis.admin('POST', `/admin/servers/${other.uuid}/recover`, {
      backup: otherCopy.body.snapshot_id,
    });
    assert.equal(notLost.status, 409, JSON.stringify(notLost.body));
    const unknown = await nubis.admin('POST', `/admin/servers/${server.uuid}/recover`, {
      backup: '00000000-0000-4000-8000-000000000000',
    });
    assert.equal(unknown.status, 404);

    const recovered = await nubis.admin('POST', `/admin/servers/${server.uuid}/recover`, {
      backup: taken.body.snapshot_id,
    });
    assert.equal(recovered.status, 202, JSON.stringify(recovered.body));
    assert.equal(recovered.body.power, 'restoring');
    assert.notEqual(recovered.body.host, host);
    assert.equal((await eventsOf(server.uuid, 'server.recovered')).length, 1);
    const told = (await mailsTo(nubis, alice.email)).filter((m) => m.subject.includes('stranded is being recovered'));
    assert.equal(told.length, 1);
    await nubis.advance(SETTLE_SECONDS);
    const back = await serverInfo(nubis, alice.token, server.uuid);
    assert.equal(back.power, 'running');
    assert.equal(
      (back.conditions as { type: string; status: string }[]).find((c) => c.type === 'MachinePresent')?.status,
      'true',
    );
    // Recovered once: asked again, it is not lost any more.
    const again = await nubis.admin('POST', `/admin/servers/${server.uuid}/recover`, {
      backup: taken.body.snapshot_id,
    });
    assert.equal(again.status, 409);

    // The host comes back: it is online again and takes machines.
    const cleared = await nubis.admin('DELETE', `/admin/faults/hosts/${host}`);
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    assert.equal(cleared.body.status, 'online');
  });

  test('a lost server is not recovered from a backup whose copy failed (409 naming it)', async () => {
    const server = await orderServer(nubis, alice.token, { label: 'failed copy', auto_backups: true });
    // Provisioned (60 s): the day's backup is taken, its copy under way for a few seconds more.
    await nubis.advance(60);
    await runBackupSweep(nubis.running.ctx);
    const list = await nubis.request('GET', '/v1.3/snapshot/list', { token: alice.token });
    const backup = (list.body.snapshots as { uuid: string; type: string; server_id: string; status: string }[]).find(
      (s) => s.type === 'backup' && s.server_id === server.uuid,
    );
    assert.ok(backup, JSON.stringify(list.body));
    assert.equal(backup.status, 'processing');
    // What the job runner does when the engine gives up on the copy.
    const ctx = nubis.running.ctx;
    assert.ok(await transaction(ctx, (trx) => copyFailed(ctx, trx, backup.uuid, 'the engine gave up on the copy')));
    const host = (await hostOf(server.uuid))!;
    await nubis.admin('POST', '/admin/faults/hosts', { host, fault: 'host_offline' });
    try {
      assert.equal((await nubis.admin('GET', `/admin/servers/${server.uuid}`)).body.lost, true);
      const refused = await nubis.admin('POST', `/admin/servers/${server.uuid}/recover`, { backup: backup.uuid });
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      assert.match(JSON.stringify(refused.body), /backup failed/);
      assert.equal((await eventsOf(server.uuid, 'server.recovered')).length, 0);
      assert.equal((await nubis.admin('GET', `/admin/servers/${server.uuid}`)).body.lost, true, 'still lost');
    } finally {
      await nubis.admin('DELETE', `/admin/faults/hosts/${host}`);
    }
  });

  test('bad input 400 naming the field; an unknown host 404; an offline host is not drained', async () => {
    const bad = await nubis.admin('POST', '/admin/faults/hosts', { host: 'x', fault: 'melted' });
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /fault/);
    const badRecover = await nubis.admin('POST', '/admin/servers/1/recover', {});
    assert.equal(badRecover.status, 400);
    assert.match(JSON.stringify(badRecover.body), /backup/);
    assert.equal((await nubis.admin('POST', '/admin/hosts/nowhere-9/drain')).status, 404);
    assert.equal((await nubis.admin('POST', '/admin/hosts/nowhere-9/restore')).status, 404);
    const host = (await hosts())[0]!.name;
    await nubis.admin('POST', '/admin/faults/hosts', { host, fault: 'host_offline' });
    assert.equal((await nubis.admin('POST', `/admin/hosts/${host}/drain`)).status, 409);
    await nubis.admin('DELETE', `/admin/faults/hosts/${host}`);
  });
});

/** Runs the CLI in this process against the instance, as the operator. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const into = (append: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        append(String(chunk));
        done();
      },
    });
  const code = await runCli(args, {
    stdout: into((text) => {
      stdout += text;
    }),
    stderr: into((text) => {
      stderr += text;
    }),
    env: {
      XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'nubis-hosts-cli-')),
      NUBIS_URL: nubis.url,
      NUBIS_TOKEN: alice.token,
      ADMIN_TOKEN,
    },
  });
  return { code, stdout, stderr };
}

describe('hosts from the command line', () => {
  test('admin hosts list, drain and restore; admin servers list shows the host; recover refuses a server not lost', async () => {
    const server = await deployServer(nubis, alice.token, { label: 'cli host' });
    const host = (await hostOf(server.uuid))!;
    const listed = await cli(['admin', 'hosts', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^NAME\s+STATUS\s+SERVERS\s+VCPUS\s+MEMORY GB\s+DISK GB/m);
    assert.match(listed.stdout, new RegExp(`^${host}\\s+online\\s+\\d+\\s+\\d+/16`, 'm'));
    const json = await cli(['-o', 'json', 'admin', 'hosts', 'list']);
    assert.ok(JSON.parse(json.stdout).hosts.some((h: Host) => h.name === host));

    const drained = await cli(['admin', 'hosts', 'drain', host]);
    assert.equal(drained.code, 0, drained.stderr);
    assert.match(drained.stdout, new RegExp(`^${host}\\s+evacuated`, 'm'));
    const servers = await cli(['admin', 'servers', 'list', '--account', String(alice.id)]);
    assert.match(servers.stdout, /HOST/);
    assert.notEqual(await hostOf(server.uuid), host);
    const restored = await cli(['admin', 'hosts', 'restore', host]);
    assert.equal(restored.code, 0, restored.stderr);
    assert.equal(await hostOf(server.uuid), host);

    const refused = await cli(['admin', 'servers', 'recover', server.uuid, '--backup', '1']);
    assert.ok(refused.code === exitCodes.conflict || refused.code === exitCodes.notFound, refused.stderr);
  });
});

describe('hosts outside the emulator', () => {
  test('host faults answer 403 when emulator tools are off', async () => {
    const real = await startTestInstance({ CLOCK: 'system' });
    try {
      const answer = await real.admin('POST', '/admin/faults/hosts', { host: 'x-1', fault: 'host_offline' });
      assert.equal(answer.status, 403);
      assert.equal((await real.admin('GET', '/admin/hosts')).status, 200);
    } finally {
      await real.close();
    }
  });
});
