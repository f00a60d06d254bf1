// Class 7 of issue 21: a body over the limit is refused while the client is still sending it,
// and the refusal is readable: the server reads and discards what keeps coming (up to a bound)
// before it closes, as nginx's lingering close does, so the client is not reset mid-upload.
// Twenty 20 MB uploads (declared with Content-Length, and chunked) from a client that reads
// only once it has sent everything get twenty answers.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startTestInstance, type TestInstance } from '../support/instance.ts';

const size = 20 * 1024 * 1024;
const piece = Buffer.alloc(64 * 1024, 'a');
let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance({}, { captureLog: true });
});
after(async () => {
  await nubis.close();
});

/** Sends a 20 MB body, then reads: answers what arrived (or how the connection failed). */
function upload(chunked: boolean): Promise<string> {
  const url = new URL(nubis.url);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = '';
    let failure = '';
    socket.pause();
    socket.on('data', (data) => {
      received += data;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      failure = error.code ?? error.message;
    });
    socket.on('close', () => resolve(received || `no answer (${failure})`));
    socket.on('connect', async () => {
      const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`;
      socket.write(
        `POST /v1.3/account/register HTTP/1.1\r\nHost: nubis\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`,
      );
      for (let sent = 0; sent < size && !socket.destroyed; sent += piece.length) {
        const more = chunked
          ? socket.write(Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]))
          : socket.write(piece);
        if (!more)
          await new Promise<void>((resolve) => {
            const go = () => {
              socket.off('drain', go);
              socket.off('close', go);
              resolve();
            };
            socket.once('drain', go);
            socket.once('close', go);
          });
      }
      if (chunked && !socket.destroyed) socket.write('0\r\n\r\n');
      socket.resume();
      socket.end();
    });
  });
}

test('twenty 20 MB bodies sent before reading get twenty readable answers', async () => {
  const answers: string[] = [];
  for (let i = 0; i < 20; i++) {
    const text = await upload(i % 2 === 1);
    const status = text.split('\r\n')[0];
    const body = text.slice(text.indexOf('\r\n\r\n') + 4);
    answers.push(
      status === 'HTTP/1.1 400 Bad Request' && /"field":"body"/.test(body) ? 'answered' : text.slice(0, 200),
    );
  }
  assert.deepEqual(answers, Array(20).fill('answered'));
  assert.deepEqual(nubis.errorLog(), []);
});
