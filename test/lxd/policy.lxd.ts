// What the API shows, the machine obeys (blocked ports): a real server cannot reach the account's
// blocked TCP and UDP ports on the host's bridge address (the only address besides loopback this
// suite sends traffic to), reaches the ports not listed, and follows the operator's `smtp` and
// `blocked_ports` changes without a restart. Run by `npm run test:lxd`.

import assert from 'node:assert/strict';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { test } from 'node:test';
import { awaitPower, eventually, lxdSuite, publicAddress, ssh, sshEventually, sleep, testPool } from './support.ts';

const gateway = testPool.replace(/\.0\/\d+$/, '.1');
/** The ports listened on: SMTP's (blocked by default), and one of each protocol nobody lists. */
const tcpPorts = [25, 587, 2525];
const udpBlocked = 5399;
const udpOpen = 5398;
const listeners: (TcpServer | UdpSocket)[] = [];
/** What reached the host: `tcp 25 from <address>`, `udp 5399 from <address>`. */
const arrived = new Set<string>();

for (const port of tcpPorts) {
  const listener = createTcpServer((socket) => {
    arrived.add(`tcp ${port} from ${socket.remoteAddress}`);
    socket.end('hello\n');
  });
  await new Promise<void>((resolve) => listener.listen(port, gateway, resolve));
  listeners.push(listener);
}
for (const port of [udpBlocked, udpOpen]) {
  const socket = createSocket('udp4');
  socket.on('message', (_message, from) => arrived.add(`udp ${port} from ${from.address}`));
  await new Promise<void>((resolve) => socket.bind(port, gateway, resolve));
  listeners.push(socket);
}

const { nubis, alice, lxd, key, addKey, createServer } = await lxdSuite({
  credit: 500,
  cleanUp: () => {
    for (const listener of listeners) listener.close();
  },
});

/** Sends from the server to the host's bridge address on each port; which arrived (a fresh try each call). */
async function reach(address: string, tcp: number[], udp: number[]): Promise<string[]> {
  for (const entry of [...arrived]) if (entry.endsWith(`from ${address}`)) arrived.delete(entry);
  // Busybox's nc has no UDP: a TFTP read request is the guest's way to send a datagram to a port.
  const tries = [
    ...tcp.map((port) => `echo x | timeout 3 nc -w 2 ${gateway} ${port}`),
    ...udp.map((port) => `timeout 2 tftp -g -r probe -l /tmp/probe ${gateway} ${port}`),
  ].map((command) => `${command} >/dev/null 2>&1`);
  await sshEventually(address, { key: key.path }, 'true');
  const sent = ssh(address, { key: key.path }, `${tries.join('; ')}; echo sent`);
  assert.equal(sent.stdout.trim(), 'sent', `${sent.code} ${sent.stderr}`);
  // ssh ran synchronously: the listeners take what reached them (queued by the kernel) now.
  await sleep(500);
  return [...arrived]
    .filter((entry) => entry.endsWith(`from ${address}`))
    .map((entry) => entry.replace(` from ${address}`, ''))
    .sort();
}

async function setAccount(body: Record<string, unknown>) {
  const changed = await nubis.admin('PATCH', `/admin/accounts/${alice.id}`, body);
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  return changed.body;
}

test('blocked ports are dropped at the engine, smtp lifts and restores them without a restart', async () => {
  const keyUuid = await addKey();
  const account = await setAccount({ blocked_ports: { TCP: [25, 465, 587], UDP: [udpBlocked] } });
  assert.deepEqual(account.blocked_ports, { TCP: [25, 465, 587], UDP: [udpBlocked] });
  const made = await createServer({ hostname: 'mailer.example.com', label: 'mailer', ssh_key: keyUuid });
  const address = publicAddress(await awaitPower(nubis, alice.token, made.uuid, 'running'));

  // Blocked from its first boot: the unlisted ports pass, the listed ones do not.
  assert.deepEqual(await reach(address, tcpPorts, [udpBlocked, udpOpen]), ['tcp 2525', `udp ${udpOpen}`]);

  // smtp true: within a reconciliation TCP 25 and 587 pass, with no restart; the UDP block stays.
  const lifted = await setAccount({ smtp: true });
  assert.deepEqual(lifted.blocked_ports, { TCP: [], UDP: [udpBlocked] });
  await eventually('smtp lifted in the engine', 30, async () => {
    const reached = await reach(address, tcpPorts, [udpBlocked]);
    return reached.includes('tcp 25') ? reached : undefined;
  }).then((reached) => assert.deepEqual(reached, ['tcp 2525', 'tcp 25', 'tcp 587'].sort()));

  // smtp false: blocked again.
  await setAccount({ smtp: false });
  await eventually('smtp blocked again in the engine', 30, async () => {
    const reached = await reach(address, tcpPorts, []);
    return reached.includes('tcp 25') ? undefined : reached;
  }).then((reached) => assert.deepEqual(reached, ['tcp 2525']));

  // Back to the deployment's default (TCP 25, 465, 587; no UDP): the UDP port passes now.
  const defaults = await setAccount({ blocked_ports: null });
  assert.deepEqual(defaults.blocked_ports, { TCP: [25, 465, 587], UDP: [] });
  await eventually('the default list in the engine', 30, async () => {
    const reached = await reach(address, [25], [udpBlocked]);
    return reached.includes(`udp ${udpBlocked}`) ? reached : undefined;
  }).then((reached) => assert.deepEqual(reached, [`udp ${udpBlocked}`]));
  const acl = await lxd.get<{ egress: { destination_port: string; source: string }[] }>(
    '/1.0/network-acls/nubis-101-ports',
  );
  assert.deepEqual(
    acl.egress.filter((rule) => rule.source.split(',').includes(`${address}/32`)).map((r) => r.destination_port),
    ['25,465,587'],
  );
});
