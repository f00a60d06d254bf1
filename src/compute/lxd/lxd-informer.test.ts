// The LXD driver listens to the engine (issue 38), checked against an engine stand-in on a unix
// socket that serves /1.0/events as LXD does and counts the instance reads: the informer hears
// which servers' instances changed, answers "read everything" until it listens, after its stream
// drops and once the resync is due; the driver reads only the instances it is asked for, and one
// small call when none.

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { WebSocketServer, type WebSocket } from 'ws';
import { loadConfig } from '../../config.ts';
import { LxdClient } from './lxd-client.ts';
import { LxdDriver } from './lxd-driver.ts';
import { LxdInformer, serverOfEventSource } from './lxd-informer.ts';

const dir = mkdtempSync(join(tmpdir(), 'nubis-informer-'));
const socketPath = join(dir, 'lxd.socket');
const streams = new Set<WebSocket>();
const requests: string[] = [];
const wss = new WebSocketServer({ noServer: true });
const http = createServer((req: IncomingMessage, res: ServerResponse) => {
  requests.push(decodeURIComponent(req.url ?? ''));
  res.setHeader('content-type', 'application/json');
  const metadata = req.url?.startsWith('/1.0/instances') ? [] : { api_version: '1.0' };
  res.end(JSON.stringify({ type: 'sync', status_code: 200, error_code: 0, error: '', metadata }));
});
http.on('upgrade', (req, socket, head) => {
  if (!req.url?.startsWith('/1.0/events?type=lifecycle')) return socket.destroy();
  wss.handleUpgrade(req, socket, head, (ws) => {
    streams.add(ws);
    ws.on('close', () => streams.delete(ws));
  });
});

before(() => new Promise<void>((resolve) => http.listen(socketPath, resolve)));
after(async () => {
  for (const ws of streams) ws.terminate();
  await new Promise((resolve) => http.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** Polls `probe` (at most 5 s) until it holds. */
async function until(what: string, probe: () => boolean): Promise<void> {
  for (const end = Date.now() + 5000; !probe(); ) {
    if (Date.now() > end) throw new Error(`${what}: not within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function lifecycle(action: string, source: string): string {
  return JSON.stringify({ type: 'lifecycle', timestamp: new Date().toISOString(), metadata: { action, source } });
}

test('an event source names its server (the instance or its rescue system), nothing else does', () => {
  const uuid = randomUUID();
  assert.equal(serverOfEventSource(`/1.0/instances/nubis-${uuid}`), uuid);
  assert.equal(serverOfEventSource(`/1.0/instances/nubis-rescue-${uuid}?project=nubis`), uuid);
  assert.equal(serverOfEventSource(`/1.0/instances/nubis-${uuid}/snapshots/n1`), uuid);
  assert.equal(serverOfEventSource('/1.0/instances/somebody-else'), null);
  assert.equal(serverOfEventSource(`/1.0/images/nubis-${uuid}`), null);
});

test('the informer tells what changed, and everything until it listens, after a drop and at the resync', async () => {
  let now = 0;
  const informer = new LxdInformer(new LxdClient({ url: socketPath }), { resyncMs: 600_000, now: () => now });
  try {
    assert.equal(informer.take(), null, 'nothing heard before listening');
    await until('the stream opened', () => informer.listening);
    assert.equal(informer.take(), null, 'listening now: one full read from here');
    assert.deepEqual([...informer.take()!], []);
    const [a, b] = [randomUUID(), randomUUID()];
    const [stream] = streams;
    stream!.send(lifecycle('instance-stopped', `/1.0/instances/nubis-${a}`));
    stream!.send(lifecycle('instance-deleted', `/1.0/instances/nubis-${b}`));
    stream!.send(JSON.stringify({ type: 'logging', metadata: { message: 'not a change' } }));
    stream!.send(lifecycle('instance-started', '/1.0/instances/not-ours'));
    stream!.send(lifecycle('instance-updated', `/1.0/instances/nubis-rescue-${a}`));
    await until('the events heard', () => informer.heard === 5);
    assert.deepEqual(new Set(informer.take()), new Set([a, b]));
    assert.deepEqual([...informer.take()!], []);

    // The stream drops: what happens until it is open again is not heard.
    stream!.terminate();
    await until('the drop noticed', () => !informer.listening);
    assert.equal(informer.take(), null);
    await until('the stream opened again', () => informer.listening);
    assert.equal(informer.take(), null, 'the full read after the reconnection');
    assert.deepEqual([...informer.take()!], []);

    // The resync is due.
    now += 600_000;
    assert.equal(informer.take(), null);
    assert.deepEqual([...informer.take()!], []);
  } finally {
    informer.close();
  }
});

test('the driver reads only the instances asked for, and asks one small question when none', async () => {
  const config = loadConfig({ COMPUTE_DRIVER: 'lxd', LXD_URL: socketPath, DATA_DIR: dir, LOG_LEVEL: 'silent' });
  const driver = new LxdDriver(config, new LxdClient({ url: socketPath }));
  try {
    requests.length = 0;
    await driver.observe(new Map(), 0, new Set());
    assert.deepEqual(requests, ['/1.0']);
    requests.length = 0;
    const uuid = randomUUID();
    await driver.observe(new Map(), 0, new Set([uuid]));
    assert.deepEqual(requests, [
      // Once per driver: whether the engine is a cluster (its VPC networks are named differently).
      '/1.0',
      `/1.0/instances?recursion=2&filter=name eq nubis-${uuid} or name eq nubis-rescue-${uuid}`,
    ]);
    requests.length = 0;
    await driver.readAll(0);
    assert.deepEqual(requests, ['/1.0/instances?recursion=2']);
  } finally {
    driver.close();
  }
});
