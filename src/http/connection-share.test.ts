// The first-byte timeout closes a connection that sent nothing, not one whose bytes arrived while
// the server was busy. Found under load: a test's fetch got ECONNRESET after the process had been
// busy for seconds (the check ran in the timers phase, before the poll phase read what waited).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { startTestInstance } from '../../test/support/instance.ts';

/** Keeps this process (the server's too: it runs in-process) busy, reading nothing. */
function busyFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

test('a request that arrived while the server was busy past FIRST_BYTE_TIMEOUT_MS is answered', async () => {
  const nubis = await startTestInstance({ FIRST_BYTE_TIMEOUT_MS: '200' });
  try {
    const url = new URL(nubis.url);
    for (let round = 0; round < 3; round++) {
      const accepted = once(nubis.running.app.server, 'connection');
      const socket = connect(Number(url.port), url.hostname);
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk;
      });
      socket.on('error', () => {});
      const closed = once(socket, 'close');
      await Promise.all([once(socket, 'connect'), accepted]);
      // In the kernel's buffers at once; then the server is too busy to read it for a while.
      socket.write('GET /healthz HTTP/1.1\r\nHost: nubis\r\nConnection: close\r\n\r\n');
      busyFor(600);
      await closed;
      assert.match(received, /^HTTP\/1\.1 200/, `round ${round}: ${received || 'closed unanswered'}`);
    }
  } finally {
    await nubis.close();
  }
});
