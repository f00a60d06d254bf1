// Issue 34, items 2 and 7, and the console behind the compute driver (issues 36/37): the console
// relay keeps its buffers bounded both ways (a viewer typing faster than the guest reads is
// paused; a machine writing faster than the viewer reads is paused; keystrokes before the
// machine's console is attached wait in a bounded queue; a viewer that reads nothing is closed
// 4408), a bad frame never ends the process, sessions are logged, an operator's console is
// audited and a block mid-session closes 4403. The machine's console is a stand-in
// (test/support/console-stand-in.ts): no engine needed.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { ADMIN_TOKEN, type JsonBody, startTestInstance, type TestInstance } from '../support/instance.ts';
import { createAccount, type TestAccount } from '../support/accounts.ts';
import { deployServer } from '../support/servers.ts';
import { captureLogs, type CapturedLogs } from '../support/logs.ts';
import { ConsoleStandIn, standInConsoles } from '../support/console-stand-in.ts';
import { NO_MACHINE } from '../../src/compute/simulated-driver.ts';
import { EARLY_BYTES, RELAY_HIGH_BYTES, STALL_CODE, STALL_REASON } from '../../src/server-console/console-relay.ts';

const MB = 1024 * 1024;
const frame = Buffer.alloc(64 * 1024, 0x61);

/** A console WebSocket as a client opens it, and how it closed. */
function openConsole(nubis: TestInstance, path: string, protocol: string) {
  const socket = new WebSocket(`${nubis.url.replace(/^http/, 'ws')}${path}`, ['nubis.console', protocol], {
    headers: { 'x-request-id': 'console-test-1' },
  });
  socket.on('error', () => {});
  let received = 0;
  socket.on('message', (data: Buffer) => {
    received += data.length;
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('close', () => reject(new Error('closed before it opened')));
  });
  return { socket, opened, closed, received: () => received };
}

const bearer = (token: string) => `bearer.${Buffer.from(token).toString('base64url')}`;
const operator = `operator.${Buffer.from(ADMIN_TOKEN).toString('base64url')}`;

/** Resolves once `condition()` holds, checking it at every `event` of `emitter` (and now). */
function when(emitter: NodeJS.EventEmitter, event: string, condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (condition()) return resolve();
    const check = () => {
      if (!condition()) return;
      emitter.off(event, check);
      resolve();
    };
    emitter.on(event, check);
  });
}

/** Resolves once `condition()` holds, checked every few ms (for what announces no event). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** The log line of a console session that closed with `code`, once it is written. */
async function closedLog(logs: CapturedLogs, code: number): Promise<Record<string, unknown>> {
  const line = () => logs.lines().find((entry) => entry.msg === 'console: session closed' && entry.code === code);
  await until(() => line() !== undefined);
  return line()!;
}

describe('the console relay', () => {
  let nubis: TestInstance;
  let alice: TestAccount;
  let uuid: string;
  let logs: CapturedLogs;
  before(async () => {
    nubis = await startTestInstance({ LOG_LEVEL: 'info' });
    logs = captureLogs(nubis);
    alice = await createAccount(nubis);
    uuid = (await deployServer(nubis, alice.token)).uuid;
  });
  after(async () => {
    await nubis.close();
  });

  test('the simulated driver has no machine: 4409; a frame above the limit closes 1009 and the server serves on', async () => {
    const none = openConsole(nubis, `/v1.3/server/console/${uuid}`, bearer(alice.token));
    assert.deepEqual(await none.closed, { code: 4409, reason: NO_MACHINE.slice(0, 120) });

    const undo = standInConsoles(nubis, async () => ({ console: new ConsoleStandIn() }));
    try {
      const big = openConsole(nubis, `/v1.3/server/console/${uuid}`, bearer(alice.token));
      await big.opened;
      big.socket.send(Buffer.alloc(70 * 1024), { binary: true });
      assert.equal((await big.closed).code, 1009);
    } finally {
      undo();
    }
    assert.equal((await nubis.request('GET', '/readyz')).status, 200);
  });

  test('a machine console that throws closes the session 1011, logged; the server serves on', async () => {
    const machine = new ConsoleStandIn();
    machine.write = () => {
      throw new Error('planted: the engine console broke');
    };
    const undo = standInConsoles(nubis, async () => ({ console: machine }));
    try {
      const viewer = openConsole(nubis, `/v1.3/server/console/${uuid}`, bearer(alice.token));
      await viewer.opened;
      await when(machine, 'attached', () => machine.attached);
      viewer.socket.send(Buffer.from('ls\r'), { binary: true });
      assert.deepEqual(await viewer.closed, { code: 1011, reason: 'the console failed' });
      const failed = logs.errors().find((line) => line.msg === 'console: the relay failed');
      assert.match(String((failed?.err as { message?: string })?.message), /planted/);
      assert.equal((await nubis.request('GET', '/readyz')).status, 200);
      await closedLog(logs, 1011);
    } finally {
      undo();
    }
  });

  test('keystrokes faster than the guest reads: the viewer is paused above the bound', async () => {
    const machine = new ConsoleStandIn();
    const undo = standInConsoles(nubis, async () => ({ console: machine }));
    // The guest reads 64 kB every 2 ms (32 MB/s): far slower than loopback.
    const guest = setInterval(() => machine.read(64 * 1024), 2);
    try {
      const viewer = openConsole(nubis, `/v1.3/server/console/${uuid}`, bearer(alice.token));
      await viewer.opened;
      const total = 16 * MB;
      for (let sent = 0; sent < total; sent += frame.length) viewer.socket.send(frame, { binary: true });
      await when(machine, 'write', () => machine.received >= total);
      assert.ok(
        machine.maxHeld <= RELAY_HIGH_BYTES + 2 * frame.length,
        `the relay held ${machine.maxHeld} bytes for the machine (bound ${RELAY_HIGH_BYTES})`,
      );
      viewer.socket.close();
      await viewer.closed;
    } finally {
      clearInterval(guest);
      undo();
    }
  });

  test('output faster than the viewer reads: the machine is paused, resumed, and a viewer that reads nothing is closed 4408', async () => {
    const machine = new ConsoleStandIn();
    const undo = standInConsoles(nubis, async () => ({ console: machine }));
    try {
      const viewer = openConsole(nubis, `/v1.3/server/console/${uuid}`, bearer(alice.token));
      await viewer.opened;
      await when(machine, 'attached', () => machine.attached);
      viewer.socket.pause();
      const total = 256 * MB;
      machine.produce(total);
      const produced = new Promise((resolve) => machine.once('produced', resolve));
      await Promise.race([new Promise((resolve) => machine.once('pause', resolve)), produced]);
      assert.ok(machine.paused, `the relay never paused the machine: ${machine.emitted} bytes taken, none read`);
      assert.ok(machine.emitted < 64 * MB, `${machine.emitted} bytes taken before the pause`);

      // The viewer reads again: the machine is resumed.
      viewer.socket.resume();
      await when(machine, 'resume', () => !machine.paused);
      // And stops reading for good: paused again, then closed with the documented code.
      viewer.socket.pause();
      await when(machine, 'pause', () => machine.paused);
      await when(machine, 'close', () => machine.closed);
      // The kernel's buffers took what they could; the relay kept no more than its bound beside them.
      assert.ok(machine.emitted < 64 * MB, `${machine.emitted} bytes taken from the machine, none read`);
      viewer.socket.resume();
      assert.deepEqual(await viewer.closed, { code: STALL_CODE, reason: STALL_REASON });
      const closedLine = await closedLog(logs, STALL_CODE);
      assert.equal(closedLine.server, uuid);
      assert.equal(closedLine.reqId, 'console-test-1');
      assert.ok(Number(closedLine.bytesOut) > 0 && Number(closedLine.bytesOut) <= machine.emitted);
    } finally {
      undo();
    }
  });

  test('keystrokes before the machine is attached wait in a bounded queue, then all arrive', async () => {
    const machine = new ConsoleStandIn();
    let attach!: () => void;
    const gate = new Promise<void>((resolve) => {
      attach = resolve;
    });
    let flushed = -1;
    const undo = standInConsoles(nubis, async () => {
      await gate;
      // What the relay wrote the moment it attached is what it kept meanwhile.
      setImmediate(() => {
        flushed = machine.received;
      });
      return { console: machine };
    });
    const guest = setInterval(() => machine.read(256 * 1024), 1);
    try {
      const viewer = openConsole(nubis, `/v1.3/server/console/${uuid}`, bearer(alice.token));
      await viewer.opened;
      // More than the kernel's buffers hold (32 MB received + 4 MB sent at most here): a relay
      // that reads it all keeps it all.
      const total = 64 * MB;
      let sent = 0;
      for (let offset = 0; offset < total; offset += frame.length)
        viewer.socket.send(frame, { binary: true }, () => {
          sent += frame.length;
        });
      // Until all is sent, or sending has stood still for 100 ms (the relay stopped reading).
      let last = -1;
      let still = 0;
      await until(() => {
        still = sent === last ? still + 1 : 0;
        last = sent;
        return sent >= total || still >= 20;
      });
      attach();
      await when(machine, 'write', () => machine.received >= total);
      assert.ok(flushed >= 0);
      assert.ok(flushed <= EARLY_BYTES + 16 * frame.length, `${flushed} bytes were queued before the console opened`);
      viewer.socket.close();
      await viewer.closed;
    } finally {
      clearInterval(guest);
      undo();
    }
  });

  test('sessions are logged; an operator console is audited; a block mid-session closes 4403', async () => {
    const undo = standInConsoles(nubis, async () => ({ console: new ConsoleStandIn() }));
    try {
      const admin = openConsole(nubis, `/admin/servers/${uuid}/console`, operator);
      await admin.opened;
      // Written once access is checked, which follows the handshake.
      let entry: JsonBody;
      while (!entry) {
        const audit = await nubis.admin('GET', '/admin/audit?call=console');
        assert.equal(audit.status, 200);
        entry = audit.body.entries[0];
      }
      assert.equal(entry?.call, 'GET /admin/servers/:server/console');
      assert.equal(entry?.target, `server=${uuid}`);
      assert.equal(entry?.status, 101);
      admin.socket.close(1000, 'done');
      await admin.closed;

      const viewer = openConsole(nubis, `/v1.3/server/console/${uuid}`, bearer(alice.token));
      await viewer.opened;
      await until(() =>
        logs
          .lines()
          .some((line) => line.msg === 'console: session opened' && line.viewer === 'customer' && line.server === uuid),
      );
      assert.equal((await nubis.admin('PATCH', `/admin/accounts/${alice.id}`, { blocked: true })).status, 200);
      assert.deepEqual(await viewer.closed, { code: 4403, reason: 'the account is blocked' });
      const closed = await closedLog(logs, 4403);
      assert.equal(closed.reason, 'the account is blocked');
      assert.equal(closed.viewer, 'customer');
      assert.equal(typeof closed.bytesIn, 'number');
      assert.ok(
        logs.lines().some((line) => line.msg === 'console: session closed' && line.viewer === 'operator'),
        "the operator's session closed line",
      );
      // None but the planted failure's.
      assert.deepEqual(
        logs.errors().filter((line) => line.msg !== 'console: the relay failed'),
        [],
      );
    } finally {
      undo();
      await nubis.admin('PATCH', `/admin/accounts/${alice.id}`, { blocked: false });
    }
  });
});
