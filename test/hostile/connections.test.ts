// Class 5 of issue 21: one client address cannot take every connection. An attacker at 127.0.0.1
// holds 1,000 silent connections and re-opens each one the server closes; another client
// (127.0.0.2: all of 127.0.0.0/8 is loopback) is served throughout. A connection that has sent
// nothing is closed sooner than one whose request is under way. Behind a trusted proxy the
// proxy's address is not capped (everyone behind it shares it).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { startTestInstance, type TestInstance } from '../support/instance.ts';

function open(url: URL, localAddress: string): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ port: Number(url.port), host: url.hostname, localAddress });
    socket.on('error', () => {});
    socket.once('connect', () => resolve(socket));
    socket.once('close', () => resolve(socket));
  });
}

/** A GET on a new connection from `localAddress`: its status, or how it failed. */
function get(url: URL, path: string, localAddress: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve) => {
    const req = httpRequest(new URL(path, url), { agent: false, localAddress, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
    });
    req.setTimeout(15_000, () => req.destroy(new Error('no answer in 15 s')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

describe('connections from one address', () => {
  let nubis: TestInstance;
  let url: URL;
  before(async () => {
    nubis = await startTestInstance({ FIRST_BYTE_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '5000' });
    url = new URL(nubis.url);
  });
  after(async () => {
    await nubis.close();
  });

  test('1,000 silent connections from one address leave the others served', async () => {
    const held = new Set<Socket>();
    let attacking = true;
    let opened = 0;
    // The attacker has opened its 1,000 connections before the others arrive (a count, not a
    // time a loaded machine may overrun).
    let allOpened: () => void = () => {};
    const filled = new Promise<void>((resolve) => {
      allOpened = resolve;
    });
    const hold = async (): Promise<void> => {
      while (attacking) {
        const socket = await open(url, '127.0.0.1');
        if (++opened === 1_000) allOpened();
        held.add(socket);
        await new Promise((resolve) => socket.once('close', resolve));
        held.delete(socket);
      }
    };
    const attackers = Array.from({ length: 1_000 }, hold);
    await filled;
    const answers: string[] = [];
    for (let round = 0; round < 50; round++)
      answers.push(...(await Promise.all(Array.from({ length: 10 }, () => get(url, '/healthz', '127.0.0.2')))));
    attacking = false;
    for (const socket of held) socket.destroy();
    await Promise.all(attackers);
    const counts: Record<string, number> = {};
    for (const answer of answers) counts[answer] = (counts[answer] ?? 0) + 1;
    assert.deepEqual(counts, { 200: 500 });
    assert.ok(opened > 1_000, `the attacker re-opened what was closed (${opened} opened)`);
  });

  test('a connection that sent nothing is closed before one whose request is under way', async () => {
    // The connection mid-request is the older one: by the headers timeout alone it would go first.
    const server = nubis.running.app.server;
    const accepted = new Promise<Socket>((resolve) => {
      const onConnection = (socket: Socket) => {
        if (socket.remoteAddress !== '127.0.0.3') return;
        server.off('connection', onConnection);
        resolve(socket);
      };
      server.on('connection', onConnection);
    });
    const started = await open(url, '127.0.0.3');
    started.write('GET /healthz HTTP/1.1\r\nHost: nubis\r\n');
    // Under way once the server has read its first bytes (what connection-share.ts checks), not
    // after a time: the silent connection is opened only then.
    const serverSide = await accepted;
    const until = Date.now() + 60_000;
    while (serverSide.bytesRead === 0) {
      assert.ok(Date.now() < until, 'the server never read the request under way');
      await new Promise((resolve) => setImmediate(resolve));
    }
    const silent = await open(url, '127.0.0.3');
    let startedClosed = false;
    started.once('close', () => {
      startedClosed = true;
    });
    let received = '';
    started.on('data', (chunk) => {
      received += chunk;
    });
    await new Promise((resolve) => silent.once('close', resolve));
    assert.equal(startedClosed, false, 'the connection mid-request outlived the silent one');
    // The answer, or the close: whichever comes (events, not a time limit a loaded machine may pass).
    const answered = new Promise<void>((resolve) => {
      const check = () => {
        if (/"ok"/.test(received)) resolve();
      };
      started.on('data', check);
      started.once('close', () => resolve());
    });
    started.write('\r\n');
    await answered;
    started.destroy();
    assert.match(received, /^HTTP\/1\.1 200/);
  });
});

test('behind a trusted proxy, its address is not capped; an untrusted one is', async () => {
  const nubis = await startTestInstance({
    TRUST_PROXY: '127.0.0.1',
    MAX_CONNECTIONS_PER_ADDRESS: '5',
    FIRST_BYTE_TIMEOUT_MS: '600000',
  });
  const url = new URL(nubis.url);
  try {
    // Twenty clients at once through the proxy (each named by X-Forwarded-For).
    const proxied = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        get(url, '/v1.3/region/list', '127.0.0.1', { 'x-forwarded-for': `203.0.113.${i + 1}` }),
      ),
    );
    assert.deepEqual(proxied, Array(20).fill('200'));
    // An untrusted address holds at most five: a sixth connection is closed at once.
    const five = await Promise.all(Array.from({ length: 5 }, () => open(url, '127.0.0.2')));
    const sixth = await open(url, '127.0.0.2');
    // Let in, it would stay open (no first-byte timeout within the test): its close is the refusal.
    if (!sixth.destroyed) await new Promise((resolve) => sixth.once('close', resolve));
    assert.equal(sixth.bytesRead, 0, 'the sixth connection from one address is closed, unanswered');
    for (const socket of five) socket.destroy();
  } finally {
    await nubis.close();
  }
});
