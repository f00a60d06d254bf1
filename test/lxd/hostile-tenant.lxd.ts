// Strangers on one host: server A (account a) acts as a hostile tenant against server B (account b)
// on the same bridge, with commands run in A through the engine's exec (and, for frames busybox
// cannot make, a raw socket in A's network namespace: frames.py). Each attempt is contained, and
// B's SSH answers throughout. Run by `npm run test:lxd`.

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { before, test } from 'node:test';
import { createAccount, type TestAccount } from '../support/accounts.ts';
import {
  awaitPower,
  eventually,
  lxdSuite,
  publicAddress,
  serverInfo,
  sleep,
  sshEventually,
  TEST_SMALL_PLAN,
  TEST_SMALL_PLAN_DISK_GB,
  testPool,
} from './support.ts';

const gateway = testPool.replace(/\.0\/\d+$/, '.1');
/** An address of the pool no server holds (the IPAM hands addresses out from the bottom). */
const unassigned = testPool.replace(/\.0\/\d+$/, '.254');
const bridge = 'nubis-101';
const tcpPort = 7341;
const udpPort = 7342;
const frames = fileURLToPath(new URL('./frames.py', import.meta.url));
const listeners: (TcpServer | UdpSocket)[] = [];
/** What reached the host's listeners: `tcp from <address>`, `udp from <address>`. */
const arrived = new Set<string>();

const tcp = createTcpServer((socket) => {
  arrived.add(`tcp from ${socket.remoteAddress}`);
  socket.end();
});
await new Promise<void>((resolve) => tcp.listen(tcpPort, gateway, resolve));
const udp = createSocket('udp4');
udp.on('message', (_message, from) => arrived.add(`udp from ${from.address}`));
await new Promise<void>((resolve) => udp.bind(udpPort, gateway, resolve));
listeners.push(tcp, udp);
const {
  nubis,
  alice: a,
  lxd,
  key,
  addKey,
  createServer,
} = await lxdSuite({
  credit: 500,
  cleanUp: () => {
    for (const listener of listeners) listener.close();
  },
});
const b = await createAccount(nubis, { credit: 500 });
let serverA = { uuid: '', address: '' };
let serverB = { uuid: '', address: '' };

// In a hook, not at the top: the suite's `after` removes the servers even when this fails.
before(async () => {
  serverA = await serverOf(a, 'mallory');
  serverB = await serverOf(b, 'victim');
});

/** A running server of the account on the small plan, reachable by SSH with the suite's key. */
async function serverOf(account: TestAccount, label: string) {
  const created = await createServer(
    { plan: TEST_SMALL_PLAN, hostname: `${label}.example.com`, label, ssh_key: await addKey(account) },
    account,
  );
  const address = publicAddress(await awaitPower(nubis, account.token, created.uuid, 'running'));
  await sshEventually(address, { key: key.path }, 'true');
  return { uuid: created.uuid as string, address };
}

/** Runs a shell command in A through the engine's exec. */
async function inA(command: string) {
  return lxd.exec(`nubis-${serverA.uuid}`, ['/bin/sh', '-c', command]);
}

/** One range of an LXD id map: `Maprange` ids from `Nsid` in the container, from `Hostid` on the host. */
interface IdmapEntry {
  Isuid: boolean;
  Isgid: boolean;
  Hostid: number;
  Nsid: number;
  Maprange: number;
}

async function instance(uuid: string) {
  return lxd.get<{ config: Record<string, string> }>(`/1.0/instances/nubis-${uuid}`);
}

/** B still answers SSH (from the host) as itself. */
async function bAnswers() {
  const answer = await sshEventually(serverB.address, { key: key.path }, 'hostname', 20);
  assert.equal(answer.stdout.trim(), 'victim.example.com');
}

/** The host's neighbour entry for an address on the bridge ('' when there is none). */
function neighbour(address: string): string {
  return spawnSync('ip', ['neigh', 'show', address, 'dev', bridge], { encoding: 'utf8' }).stdout.trim();
}

test('a hostile tenant cannot reach or harm its neighbour', async (t) => {
  const macA = (await instance(serverA.uuid)).config['volatile.eth0.hwaddr']!;
  assert.match(macA, /^[0-9a-f:]{17}$/);

  await t.test("neighbours on one bridge still reach each other's public address, through the host", async () => {
    // Port isolation keeps their frames apart: what one server sends the other goes by the gateway.
    const banner = await inA(`echo | timeout 5 nc -w 3 ${serverB.address} 22 | head -c 7; echo`);
    assert.equal(banner.stdout.trim(), 'SSH-2.0', `A to B's SSH: ${banner.stdout}${banner.stderr}`);
    const pinged = await inA(`ping -c 1 -W 3 ${serverB.address} >/dev/null 2>&1 && echo answered`);
    assert.equal(pinged.stdout.trim(), 'answered', "A pings B's address");
  });

  await t.test("A sends as B's address and as an unassigned one: nothing arrives, no ARP is believed", async () => {
    for (const forged of [serverB.address, unassigned]) {
      // The forged address on A's eth0, announced by unsolicited ARP, then used as the source
      // towards the gateway (TCP, and UDP by a TFTP request: busybox's nc has no UDP).
      const tried = await inA(
        [
          `ip addr add ${forged}/32 dev eth0`,
          `arping -U -c 2 -I eth0 -s ${forged} ${forged}`,
          `ip route replace ${gateway}/32 dev eth0 src ${forged}`,
          `echo x | timeout 3 nc -w 2 ${gateway} ${tcpPort}`,
          `timeout 2 tftp -g -r probe -l /tmp/probe ${gateway} ${udpPort}`,
          `ip route del ${gateway}/32 dev eth0`,
          `ip addr del ${forged}/32 dev eth0`,
          'echo done',
        ]
          .map((line) => `${line} >/dev/null 2>&1`)
          .join('; ')
          .replace(/echo done >\/dev\/null 2>&1$/, 'echo done'),
      );
      assert.equal(tried.stdout.trim(), 'done', tried.stderr);
      await sleep(500);
      assert.deepEqual(
        [...arrived].filter((entry) => entry.endsWith(` ${forged}`)),
        [],
        `from ${forged}: ${[...arrived].join(', ')}`,
      );
      assert.ok(!neighbour(forged).includes(macA), `the host believes ${forged} is at A: ${neighbour(forged)}`);
    }
    // A's own address still works (the listeners and the path are live).
    const own = await inA(`echo x | timeout 3 nc -w 2 ${gateway} ${tcpPort} >/dev/null 2>&1; echo done`);
    assert.equal(own.stdout.trim(), 'done');
    await eventually('A reaches the host from its own address', 10, async () =>
      arrived.has(`tcp from ${serverA.address}`) ? true : undefined,
    );
    await bAnswers();
  });

  await t.test("A's DHCP server replies and router advertisements do not reach B", async () => {
    const [pidA, vethB] = await Promise.all([
      lxd.get<{ pid: number }>(`/1.0/instances/nubis-${serverA.uuid}/state`).then((state) => state.pid),
      instance(serverB.uuid).then((body) => body.config['volatile.eth0.host_name']!),
    ]);
    // Listening on the host's side of B's NIC: every frame the bridge delivers to B.
    const capture = spawn('python3', [frames, 'capture', vethB, macA, '4'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    capture.stdout.on('data', (data: Buffer) => {
      out += data.toString();
    });
    await eventually('the capture listens', 10, async () => (out.startsWith('ready') ? true : undefined));
    const sent = spawnSync(
      'nsenter',
      ['-t', String(pidA), '-n', 'python3', frames, 'send', 'eth0', macA, serverA.address],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(sent.status, 0, sent.stderr);
    await new Promise((resolve) => capture.once('exit', resolve));
    const seen = JSON.parse(out.split('\n')[1]!) as { dhcp: number; ra: number };
    assert.deepEqual({ dhcp: seen.dhcp, ra: seen.ra }, { dhcp: 0, ra: 0 });
    await bAnswers();
  });

  await t.test("a disk fill stops at the plan's disk size", async () => {
    const plan = TEST_SMALL_PLAN_DISK_GB;
    const wanted = plan * 1024 + 512;
    const filled = await inA(
      `dd if=/dev/zero of=/fill bs=1M count=${wanted} 2>/dev/null; sync; du -m /fill | cut -f1; rm -f /fill`,
    );
    const written = Number(filled.stdout.trim());
    assert.ok(written > 0, filled.stderr);
    assert.ok(written <= plan * 1024, `${written} MiB written on a ${plan} GB disk`);
    await bAnswers();
  });

  await t.test('a fork bomb is held to the plan’s process limit', async () => {
    const limit = Number((await instance(serverA.uuid)).config['limits.processes']);
    assert.ok(limit > 0, 'limits.processes is set');
    const spawned = await inA(
      `for i in $(seq ${limit + 300}); do sleep 120 2>/dev/null & done; ls /proc | grep -c '^[0-9]'; killall sleep`,
    );
    const processes = Number(spawned.stdout.trim().split('\n')[0]);
    assert.ok(processes <= limit, `${processes} processes running with limits.processes ${limit}`);
    await bAnswers();
  });

  await t.test('each server has host ids of its own: root in A is no one in B', async () => {
    const ranges = async (uuid: string) => {
      const map = JSON.parse((await instance(uuid)).config['volatile.idmap.current'] ?? '[]') as IdmapEntry[];
      assert.ok(map.length > 0, `the running container of ${uuid} has an id map`);
      return map;
    };
    const [mapA, mapB] = await Promise.all([ranges(serverA.uuid), ranges(serverB.uuid)]);
    for (const kind of ['Isuid', 'Isgid'] as const)
      for (const x of mapA.filter((entry) => entry[kind]))
        for (const y of mapB.filter((entry) => entry[kind]))
          assert.ok(
            x.Hostid + x.Maprange <= y.Hostid || y.Hostid + y.Maprange <= x.Hostid,
            `A's ${kind === 'Isuid' ? 'uids' : 'gids'} ${x.Hostid}+${x.Maprange} overlap B's ${y.Hostid}+${y.Maprange}`,
          );
    // Root in A is an unprivileged host uid: no one's in B, and nobody's on the host.
    const rootA = mapA.find((entry) => entry.Isuid && entry.Nsid === 0)!;
    assert.ok(rootA.Hostid >= 100000, `root in A is host uid ${rootA.Hostid}`);
  });

  await t.test("a flood of B from outside does not count against B's allowance", async () => {
    const before = (await serverInfo(nubis, b.token, serverB.uuid)).bandwidth.usage as number;
    // 64 MiB of datagrams at B (a port nobody listens on), from the host.
    const flood = createSocket('udp4');
    const chunk = Buffer.alloc(32 * 1024);
    for (let sent = 0; sent < 2048; sent++)
      await new Promise<void>((resolve, reject) =>
        flood.send(chunk, 9, serverB.address, (error) => (error ? reject(error) : resolve())),
      );
    flood.close();
    const received = await eventually('the engine counted the flood', 30, async () => {
      const state = await lxd.get<{ network: Record<string, { counters: { bytes_received: number } }> }>(
        `/1.0/instances/nubis-${serverB.uuid}/state`,
      );
      return state.network.eth0!.counters.bytes_received > 64 * 1024 ** 2 ? true : undefined;
    });
    assert.ok(received);
    // Two reconciliations later the meter has read the counters.
    await sleep(3000);
    const after = (await serverInfo(nubis, b.token, serverB.uuid)).bandwidth.usage as number;
    assert.ok(after - before < 0.03, `usage went from ${before} to ${after} GB`);
    await bAnswers();
  });
});
