// Class 6 of issue 10 and class 8 of issue 21: graceful shutdown, against a real `nubis serve`
// process (and `npm start`). Requests received before SIGTERM (in flight, or still in the socket
// buffers) get their real answer; idle keep-alive connections close at once, before any
// in-flight answer; a request that arrives during the drain is answered 503 with Retry-After and
// Connection: close, /readyz 503; the process ends by itself well before the deadline, with no
// error-level log line.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { ADMIN_TOKEN, testStorageEnv } from '../support/instance.ts';

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
    // A test deployment: its fault rule (an emulator tool) slows the requests in flight.
    CLOCK: 'virtual',
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
      assert.equal(answer.status, 200, `in flight: ${answer.status} ${answer.body}`);
      assert.equal(answer.headers.connection, 'close', 'an answer given during the drain closes its connection');
    }

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

/** The status lines of every answer a connection received, in order. */
function statuses(text: string): string[] {
  return [...text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => match[1]!);
}

test('SIGTERM: every request received before it gets its real answer; only later ones 503', async () => {
  const storage = await testStorageEnv();
  const server = await start(process.execPath, ['bin/nubis.ts', 'serve'], {
    ...storage.env,
    // Far from the deadline even on a loaded machine: what is measured is who gets an answer.
    SHUTDOWN_TIMEOUT_MS: '90000',
    PASSWORD_HASH_COST: '12',
    LOG_LEVEL: 'info',
    RATE_LOGIN_PER_MINUTE: '1000000',
    RATE_LOGIN_PER_ADDRESS_PER_MINUTE: '1000000',
    RATE_REGISTER_PER_MINUTE: '1000000',
    PASSWORD_HASH_CONCURRENCY: '1000',
    AUTO_ACTIVATE: 'true',
  });
  try {
    const credentials = { email: `shutdown-${process.pid}-${Date.now()}@example.com`, password: 'a long password' };
    const registered = await fetch(new URL('/v1.3/account/register', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...credentials, firstname: 'S', lastname: 'T', accept_tos: true, country: 'NL' }),
    });
    assert.equal(registered.status, 201, await registered.clone().text());
    const { token } = (await registered.json()) as { token: string };
    const login = JSON.stringify(credentials);
    const requestOf = (i: number) =>
      i % 2 === 0
        ? `POST /v1.3/account/login HTTP/1.1\r\nHost: nubis\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(login)}\r\n\r\n${login}`
        : `GET /v1.3/server/list HTTP/1.1\r\nHost: nubis\r\nAuthorization: Bearer ${token}\r\n\r\n`;

    // Connections opened beforehand: 48 carry a request written before SIGTERM (the last ones
    // just before it, so they still wait in the socket buffers), 4 stay silent until the drain.
    // Each of the 48 has been answered once already (a keep-alive connection between two requests);
    // the 4 have sent nothing yet (an idle keep-alive connection is closed at once by the drain).
    const before = await Promise.all(Array.from({ length: 48 }, () => rawConnection(server.url)));
    const after = await Promise.all(Array.from({ length: 4 }, () => rawConnection(server.url)));
    for (const connection of before) connection.socket.write(get('/healthz'));
    for (const connection of before)
      while (!connection.text().includes('"ok"')) await new Promise((r) => setTimeout(r, 5));
    const probe = await rawConnection(server.url);
    probe.socket.write(get('/healthz'));
    while (!probe.text().includes('"ok"')) await new Promise((r) => setTimeout(r, 5));
    const answered = new Map([...before, ...after].map((connection) => [connection, connection.text().length]));
    for (let i = 0; i < 24; i++) before[i]!.socket.write(requestOf(i));
    await new Promise((resolve) => setTimeout(resolve, 40));
    for (let i = 24; i < 48; i++) before[i]!.socket.write(requestOf(i));
    // And new connections whose request is sent at once, just before the signal.
    const fresh = Array.from({ length: 12 }, (_, i) =>
      rawConnection(server.url).then((connection) => {
        connection.socket.write(requestOf(i));
        return connection;
      }),
    );
    // Written (in the kernel's buffers) before the signal is sent.
    const news = await Promise.all(fresh);

    server.child.kill('SIGTERM');
    // Arriving during the drain: once it has begun (idle keep-alive connections are then closed).
    await probe.closed;
    for (const connection of after) connection.socket.write(get('/v1.3/region/list'));

    await Promise.all([...before, ...after, ...news].map((connection) => connection.closed));
    const since = (connection: (typeof before)[number]) => connection.text().slice(answered.get(connection) ?? 0);
    const received = [...before, ...news].map(
      (connection, i) => `${i % 2 ? 'list' : 'login'} ${statuses(since(connection)).join(',') || 'reset'}`,
    );
    assert.deepEqual(
      received,
      [...before, ...news].map((_, i) => `${i % 2 ? 'list' : 'login'} 200`),
      'every request sent before SIGTERM is answered for real',
    );
    for (const connection of after) {
      assert.deepEqual(statuses(since(connection)), ['503']);
      assert.match(since(connection), /retry-after: 1/i);
    }
    assert.equal(await server.exited, 0);
    assert.deepEqual(errorLines(server.lines), []);
  } finally {
    server.child.kill('SIGKILL');
    await storage.cleanup();
  }
});
