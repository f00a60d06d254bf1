// Item 2 of issue 34's leftovers: with HOST=localhost Nubis listens on every address localhost
// names (127.0.0.1 and ::1 here: the lookup is made to answer both, as most hosts' /etc/hosts
// does), and at the end of the grace period every one of them stops accepting. Before, Fastify
// made the second listener itself, outside Nubis's connection handling: it kept accepting until
// the whole drain ended. Real sockets on both addresses; the waits are on the log and on bytes.

import assert from 'node:assert/strict';
import dns from 'node:dns';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, mock, test } from 'node:test';
import { startInstance } from '../instance.ts';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';

const loopbacks = ['127.0.0.1', '::1'] as const;
const lines: Record<string, unknown>[] = [];
const waiters: { text: string; resolve: () => void }[] = [];
const logDestination = {
  write(line: string) {
    const entry = JSON.parse(line) as Record<string, unknown>;
    lines.push(entry);
    for (const waiter of [...waiters])
      if (String(entry.msg).startsWith(waiter.text)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
  },
};
const logged = (text: string) =>
  new Promise<void>((resolve) => {
    if (lines.some((line) => String(line.msg).startsWith(text))) return resolve();
    waiters.push({ text, resolve });
  });

/** One request on a new connection: its status, or the connection's error code ('ECONNREFUSED'). */
function newConnection(host: string, port: number, path: string): Promise<string> {
  return new Promise((resolve) => {
    const req = httpRequest({ host, port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    req.end();
  });
}

/** A connection whose request has begun (headers not ended): the drain waits for it. */
async function halfSent(host: string, port: number): Promise<{ socket: Socket; received: Promise<string> }> {
  const socket = connect({ host, port });
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const received = new Promise<string>((resolve) => socket.once('close', () => resolve(text)));
  await new Promise<void>((resolve) => socket.write('GET /healthz HTTP/1.1\r\nHost: nubis\r\n', () => resolve()));
  return { socket, received };
}

describe('HOST=localhost', () => {
  let nubis: TestInstance;
  let port: number;

  before(async () => {
    const lookup = dns.lookup;
    mock.method(dns, 'lookup', (host: string, options: unknown, callback: unknown) => {
      if (host !== 'localhost') return (lookup as (...args: unknown[]) => void)(host, options, callback);
      const all = loopbacks.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      const answer = (options as { all?: boolean }).all ? [all] : [all[0]!.address, all[0]!.family];
      (callback as (...args: unknown[]) => void)(null, ...answer);
    });
    nubis = await startTestInstance(
      { HOST: 'localhost', LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '60000', HEADERS_TIMEOUT_MS: '60000' },
      { startInstance: (config, options) => startInstance(config, { ...options, logDestination }) },
    );
    port = Number(new URL(nubis.url).port);
  });
  after(async () => {
    await nubis.close();
    mock.restoreAll();
  });

  test('serves on 127.0.0.1 and ::1, and at the drain both stop accepting', async () => {
    for (const host of loopbacks) assert.equal(await newConnection(host, port, '/healthz'), '200', host);
    // Requests under way on each address keep the drain open.
    const pending = await Promise.all(loopbacks.map((host) => halfSent(host, port)));

    const closing = nubis.running.close(0);
    await logged('draining:');
    for (const host of loopbacks)
      assert.equal(await newConnection(host, port, '/healthz'), 'ECONNREFUSED', `${host} refuses new connections`);

    // What was under way is answered (503 once draining, as on one address) and the drain ends.
    for (const { socket } of pending) socket.write('\r\n');
    for (const { received } of pending) assert.match(await received, /^HTTP\/1\.1 503 /);
    await closing;
    assert.ok(lines.some((line) => line.msg === 'in-flight requests finished'));
  });
});
