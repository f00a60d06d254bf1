// Issue 34: a listener Node calls outside any request (the `connection` listeners, the
// `clientError` answer, the lingering close, a refused upgrade's timer) owns what it throws. A failure is planted in one
// connection's socket (a property the listener reads throws); the listener's throw is logged with
// its cause and its name, and the instance goes on answering. Before, the throw escaped the
// listener and ended the process.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, mock, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';

const planted = 'planted listener failure 51c2';

let nubis: TestInstance;
let server: Server;
/** What to break on the next connection the server takes, if anything. */
let plant: ((socket: Socket) => void) | null = null;
before(async () => {
  nubis = await startTestInstance({}, { captureLog: true });
  server = nubis.running.app.server;
  // Runs before every other connection listener (Node's own included).
  server.prependListener('connection', (socket: Socket) => {
    const planting = plant;
    plant = null;
    planting?.(socket);
  });
});
after(() => nubis.close());

function throwing(socket: Socket, property: string, access: 'get' | 'set') {
  const thrower = () => {
    throw new Error(planted);
  };
  Object.defineProperty(
    socket,
    property,
    access === 'get'
      ? { configurable: true, get: thrower }
      : { configurable: true, get: () => () => socket.destroy(), set: thrower },
  );
}

/** Opens a raw connection with `breakIt` planted on the server's side of it. */
async function plantedConnection(breakIt: (socket: Socket) => void, allowHalfOpen = false): Promise<Socket> {
  plant = breakIt;
  const url = new URL(nubis.url);
  const client = connect({ port: Number(url.port), host: url.hostname, allowHalfOpen });
  client.on('error', () => {});
  await once(client, 'connect');
  return client;
}

/** The error lines logged since `seen` that name `listener` and carry the planted cause. */
function linesNaming(seen: number, listener: string) {
  return nubis
    .errorLog()
    .slice(seen)
    .filter((line) => line.listener === listener && (line.err as { message?: string })?.message === planted);
}

async function assertStillServing() {
  const ready = await nubis.request('GET', '/readyz');
  assert.equal(ready.status, 200);
}

describe('a listener outside Fastify that throws', () => {
  test('the connection share: logged, that connection closed, the others served', async () => {
    const seen = nubis.errorLog().length;
    const client = await plantedConnection((socket) => throwing(socket, 'remoteAddress', 'get'));
    await once(client, 'close');
    assert.equal(linesNaming(seen, 'the connection share listener').length, 1, JSON.stringify(nubis.errorLog()));
    await assertStillServing();
  });

  test('the lingering close: logged, and the connection itself still served', async () => {
    const seen = nubis.errorLog().length;
    const client = await plantedConnection((socket) => throwing(socket, 'destroySoon', 'set'));
    client.write('GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    let answer = '';
    client.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    await once(client, 'close');
    assert.match(answer, /^HTTP\/1\.1 200/);
    assert.equal(linesNaming(seen, 'the lingering close listener').length, 1, JSON.stringify(nubis.errorLog()));
    await assertStillServing();
  });

  test('the clientError answer: logged, that connection closed, the others served', async () => {
    const seen = nubis.errorLog().length;
    const client = await plantedConnection((socket) => throwing(socket, 'writable', 'get'));
    client.write('NOT HTTP AT ALL\r\n\r\n');
    await once(client, 'close');
    assert.equal(linesNaming(seen, 'the clientError listener').length, 1, JSON.stringify(nubis.errorLog()));
    await assertStillServing();
  });

  test("a refused upgrade's timer: logged, the connection let go, the others served", async () => {
    const seen = nubis.errorLog().length;
    // The server's side of the connection: its first destroy (the timer's, 5 s after the answer) throws.
    let serverSide: Socket | undefined;
    const client = await plantedConnection((socket) => {
      serverSide = socket;
      Object.defineProperty(socket, 'destroy', {
        configurable: true,
        value: () => {
          delete (socket as { destroy?: unknown }).destroy;
          throw new Error(planted);
        },
      });
    }, true);
    // The timer fires on the test's tick: nothing else runs on a mocked setTimeout meanwhile
    // (the refused upgrade never reaches Fastify).
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      // A client that reads the answer and never ends its side: only the timer lets the connection go.
      client.write('GET /%ff HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
      const [answer] = (await once(client, 'data')) as [Buffer];
      assert.match(answer.toString(), /^HTTP\/1\.1 404/);
      const closed = once(serverSide as Socket, 'close');
      mock.timers.tick(5000);
      await closed;
      client.destroy();
    } finally {
      mock.timers.reset();
    }
    assert.equal(linesNaming(seen, "the refused upgrade's timer").length, 1, JSON.stringify(nubis.errorLog()));
    await assertStillServing();
  });
});
