// Class 6 of issue 10: graceful shutdown, against a real `nubis serve` process (and `npm start`).
// Requests in flight at SIGTERM get their answer (or a retryable 503); idle keep-alive
// connections close at once, before any in-flight answer; a request that arrives during the drain
// is answered 503 with Retry-After and Connection: close, /readyz 503; the process ends by itself
// well before the deadline, with no error-level log line.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { ADMIN_TOKEN, testStorageEnv } from '../support/server.ts';

const root = new URL('../../', import.meta.url);

interface Started {
  child: ChildProcess;
  url: URL;
  /** Every log line, parsed (JSON lines from pino and the start-up line). */
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
}

async function start(command: string, args: string[], env: Record<string, string>): Promise<Started> {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ADMIN_TOKEN, LOG_LEVEL: 'debug', SWEEPS: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<URL>((resolve, reject) => {
    const onLine = (chunk: Buffer) => {
      for (const text of chunk.toString().split('\n').filter(Boolean)) {
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(text);
        } catch {
          line = { level: 'text', msg: text };
        }
        lines.push(line);
        const match = /listening at (\S+)/.exec(String(line.msg ?? ''));
        if (match) resolve(new URL(match[1]!));
      }
    };
    child.stdout?.on('data', onLine);
    child.stderr?.on('data', onLine);
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening: ${JSON.stringify(lines)}`)));
  });
  return { child, url, lines, exited };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on its own connection; `sent` resolves once the request is written out. */
function inFlight(url: URL, path: string): { sent: Promise<void>; answer: Promise<Answer> } {
  let markSent: () => void = () => {};
  const sent = new Promise<void>((resolve) => {
    markSent = resolve;
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(new URL(path, url), { agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('finish', markSent);
    req.on('error', reject);
    req.end();
  });
  return { sent, answer };
}

/** A raw connection: `send` writes requests (pipelined if several), `text` is all it received. */
function rawConnection(url: URL): Promise<{ socket: Socket; text: () => string; closed: Promise<void> }> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname, () => resolve({ socket, text: () => received, closed }));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk;
    });
    socket.on('error', () => {});
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
  });
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: nubis\r\n\r\n`;

function errorLines(lines: Record<string, unknown>[]): Record<string, unknown>[] {
  return lines.filter((line) => typeof line.level === 'number' && line.level >= 50);
}

test('SIGTERM: in-flight requests answered, idle connections closed at once, late ones 503', async () => {
  const storage = await testStorageEnv();
  const server = await start(process.execPath, ['bin/nubis.ts', 'serve'], {
    ...storage.env,
    SHUTDOWN_TIMEOUT_MS: '20000',
  });
  try {
    const slowPath = '/v1.3/region/list';
    const rule = await fetch(new URL('/admin/faults', server.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ match: { path: slowPath }, action: { latency_ms: 1500 } }),
    });
    assert.equal(rule.status, 201, await rule.text());
    // Rules are reread within a second: wait until the delay applies.
    for (let tries = 0; ; tries++) {
      const probe = await fetch(new URL(slowPath, server.url));
      await probe.text();
      if (probe.headers.get('nubis-fault')) break;
      assert.ok(tries < 50, 'the latency rule never applied');
    }

    // Idle keep-alive connections: one answered request each, then nothing.
    const idle = await Promise.all(Array.from({ length: 5 }, () => rawConnection(server.url)));
    for (const connection of idle) connection.socket.write(get('/healthz'));
    for (const connection of idle)
      while (!connection.text().includes('"ok"')) await new Promise((r) => setTimeout(r, 10));

    // In flight: slow requests on their own connections. Arriving late: requests whose head is
    // half sent before SIGTERM (so the connection is busy, not idle) and finished during the drain.
    const requests = Array.from({ length: 12 }, () => inFlight(server.url, slowPath));
    const lateReady = await rawConnection(server.url);
    lateReady.socket.write('GET /readyz HTTP/1.1\r\nHost: nubis\r\n');
    const late = await rawConnection(server.url);
    late.socket.write('GET /v1.3/plan/list HTTP/1.1\r\nHost: nubis\r\n');
    await Promise.all(requests.map((r) => r.sent));
    // In flight means received: wait until the server has logged each of them coming in (and
    // not yet answered: every other request was). Log lines arrive in order.
    const underWay = () => {
      const ids = new Set<unknown>();
      for (const line of server.lines) {
        if (line.msg === 'incoming request') ids.add(line.reqId);
        if (line.msg === 'request completed') ids.delete(line.reqId);
      }
      return ids.size;
    };
    for (let tries = 0; underWay() < requests.length; tries++) {
      assert.ok(tries < 1_000, 'the in-flight requests never reached the server');
      await new Promise((r) => setTimeout(r, 20));
    }

    server.child.kill('SIGTERM');
    await Promise.all(idle.map((connection) => connection.closed));
    const answeredBefore = await Promise.race([
      ...requests.map((r) => r.answer.then(() => true)),
      new Promise<false>((resolve) => setImmediate(() => resolve(false))),
    ]);
    assert.equal(answeredBefore, false, 'the idle connections closed before any in-flight answer');
    lateReady.socket.write('\r\n');
    late.socket.write('\r\n');

    const answers = await Promise.all(requests.map((r) => r.answer));
    for (const answer of answers) {
      assert.ok(answer.status === 200 || answer.status === 503, `in flight: ${answer.status} ${answer.body}`);
      if (answer.status === 503) assert.ok(answer.headers['retry-after'], 'a 503 says when to retry');
      assert.equal(answer.headers.connection, 'close', 'an answer given during the drain closes its connection');
    }
    assert.ok(
      answers.some((answer) => answer.status === 200),
      'requests received before SIGTERM get their result',
    );

    await Promise.all([lateReady.closed, late.closed]);
    assert.match(lateReady.text(), /^HTTP\/1\.1 503/);
    assert.match(lateReady.text(), /"shutting down"/);
    assert.match(late.text(), /^HTTP\/1\.1 503/);
    assert.match(late.text(), /retry-after: 1/i);
    assert.match(late.text(), /connection: close/i);
    assert.match(late.text(), /"503 Service Unavailable"/);

    assert.equal(await server.exited, 0);
    assert.ok(
      server.lines.some((line) => line.msg === 'in-flight requests finished'),
      'the drain ended by itself, not at the deadline',
    );
    assert.deepEqual(errorLines(server.lines), []);
  } finally {
    server.child.kill('SIGKILL');
    await storage.cleanup();
  }
});

test('SIGTERM to `npm start` stops the server', async () => {
  const storage = await testStorageEnv();
  const npm = await start('npm', ['start', '--silent'], storage.env);
  const pids = new Set(npm.lines.map((line) => line.pid).filter((pid) => typeof pid === 'number'));
  try {
    const health = await fetch(new URL('/healthz', npm.url));
    assert.equal(health.status, 200);
    npm.child.kill('SIGTERM');
    await npm.exited;
    // The server itself (the pid in its log lines) must be gone too, not left running.
    for (let tries = 0; tries < 100; tries++) {
      const alive = [...pids].filter((pid) => {
        try {
          process.kill(pid as number, 0);
          return true;
        } catch {
          return false;
        }
      });
      if (alive.length === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(pids.size > 0, 'the server logged its pid');
    for (const pid of pids) assert.throws(() => process.kill(pid as number, 0), `server process ${pid} still running`);
    await assert.rejects(fetch(new URL('/healthz', npm.url)), 'nothing listens any more');
  } finally {
    npm.child.kill('SIGKILL');
    // A server left running would keep this test's pipes (and the test run) open.
    for (const pid of pids) {
      try {
        process.kill(pid as number, 'SIGKILL');
      } catch {}
    }
    await storage.cleanup();
  }
});
