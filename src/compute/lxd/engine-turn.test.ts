// The engine's turn for making containers (engine-turn.ts) against a stand-in engine on a unix
// socket that keeps profiles as LXD 5.0 does (a taken name answers 500 "already exists", an ETag
// per profile, a PUT whose If-Match differs answers 412): holders from separate clients never
// overlap, a lapsed turn is taken over by one taker only, and a turn pushed on is not taken. The
// real engine's answers: test/lxd/engine-turn.lxd.ts.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { engineTurn } from './engine-turn.ts';
import { LxdClient } from './lxd-client.ts';

const dir = mkdtempSync(join(tmpdir(), 'nubis-turn-'));
const socketPath = join(dir, 'lxd.socket');
const profiles = new Map<string, { description: string }>();
/** Reads of a profile, and PUTs held until a given number of them (both takers have read it). */
const reads = new Map<string, number>();
const putsWaitFor = new Map<string, { reads: number; arrived: Promise<void>; arrive: () => void }>();
const etag = (profile: { description: string }) =>
  `"${createHash('sha256').update(profile.description).digest('hex')}"`;

function answer(res: ServerResponse, status: number, metadata: unknown = {}, error = '') {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.end(
    JSON.stringify({
      type: error ? 'error' : 'sync',
      status_code: status,
      error_code: error ? status : 0,
      error,
      metadata,
    }),
  );
}

const engine = createServer(async (req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
  const url = new URL(req.url ?? '/', 'http://engine');
  if (req.method === 'POST' && url.pathname === '/1.0/profiles') {
    if (profiles.has(body.name))
      return answer(res, 500, null, `Error inserting "${body.name}" into database: The profile already exists`);
    profiles.set(body.name, { description: body.description });
    return answer(res, 200);
  }
  const name = url.pathname.replace('/1.0/profiles/', '');
  const profile = profiles.get(name);
  if (!profile) return answer(res, 404, null, 'Profile not found');
  if (req.method === 'GET') {
    reads.set(name, (reads.get(name) ?? 0) + 1);
    const gate = putsWaitFor.get(name);
    if (gate && reads.get(name)! >= gate.reads) gate.arrive();
    res.setHeader('etag', etag(profile));
    return answer(res, 200, { name, description: profile.description, config: {}, devices: {} });
  }
  if (req.method === 'PUT') {
    await putsWaitFor.get(name)?.arrived;
    if (req.headers['if-match'] && req.headers['if-match'] !== etag(profile))
      return answer(res, 412, null, "ETag doesn't match");
    profiles.set(name, { description: body.description });
    return answer(res, 200);
  }
  if (req.method === 'DELETE') {
    profiles.delete(name);
    return answer(res, 200);
  }
  answer(res, 400, null, 'unexpected');
});

before(() => new Promise<void>((resolve) => engine.listen(socketPath, resolve)));
after(() => {
  engine.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A client of its own, as another process has. */
const client = () => new LxdClient({ url: socketPath });

test('holders on separate clients take turns, and the turn is gone once given back', async () => {
  const clients = [client(), client(), client()];
  const log: string[] = [];
  let inside = 0;
  await Promise.all(
    clients.map((c, index) =>
      engineTurn(c, { name: 'turn-a', pollMs: 5, holder: `holder-${index}` })(async () => {
        inside += 1;
        assert.equal(inside, 1, 'one holder at a time');
        log.push(`${index} in`);
        await new Promise((resolve) => setImmediate(resolve));
        log.push(`${index} out`);
        inside -= 1;
      }),
    ),
  );
  assert.equal(log.length, 6);
  for (let i = 0; i < 6; i += 2) assert.equal(log[i]!.split(' ')[0], log[i + 1]!.split(' ')[0]);
  assert.equal(profiles.has('turn-a'), false);
  for (const c of clients) c.close();
});

test('a lapsed turn (its holder died) is taken over by one of two takers at a time', async () => {
  profiles.set('turn-b', { description: 'Nubis: making a container, held by dead/1 until 2000-01-01T00:00:00.000Z' });
  // Both takers read the lapsed turn before either overwrites it: only the first write may win.
  let arrive!: () => void;
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  putsWaitFor.set('turn-b', { reads: 2, arrived, arrive });
  const clients = [client(), client()];
  let inside = 0;
  const order: number[] = [];
  await Promise.all(
    clients.map((c, index) =>
      engineTurn(c, { name: 'turn-b', pollMs: 5, holder: `taker-${index}` })(async () => {
        inside += 1;
        assert.equal(inside, 1, 'one taker at a time');
        order.push(index);
        // Asked of the engine once the other's write is in: the turn still names this taker.
        const seen = await c.get<{ description: string }>('/1.0/profiles/turn-b');
        assert.match(seen.description, new RegExp(`held by taker-${index} `));
        inside -= 1;
      }),
    ),
  );
  assert.deepEqual([...order].sort(), [0, 1]);
  assert.equal(profiles.has('turn-b'), false);
  for (const c of clients) c.close();
});

test('a turn its holder pushes on is not taken past its first lapse', async () => {
  const [holding, waiting] = [client(), client()];
  // Pushed on every second: a busy machine may delay a push, by less than the two seconds left.
  const lapseMs = 3000;
  let firstUntil = 0;
  let waiterIn = 0;
  let released!: () => void;
  const release = new Promise<void>((resolve) => {
    released = resolve;
  });
  const held = engineTurn(holding, { name: 'turn-c', lapseMs, holder: 'holder' })(async () => {
    firstUntil = Date.parse(profiles.get('turn-c')!.description.split(' until ')[1]!);
    await release;
  });
  while (!firstUntil) await new Promise((resolve) => setImmediate(resolve));
  const waited = engineTurn(waiting, { name: 'turn-c', pollMs: 5, holder: 'waiter' })(async () => {
    waiterIn = Date.now();
  });
  // Past the first lapse by two of its pushes: the holder must still hold it.
  while (Date.parse(profiles.get('turn-c')!.description.split(' until ')[1]!) < firstUntil + lapseMs)
    await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(waiterIn, 0, 'the waiter did not get in while the holder pushed its hold on');
  assert.match(profiles.get('turn-c')!.description, /held by holder until/);
  released();
  await Promise.all([held, waited]);
  assert.ok(waiterIn > 0);
  holding.close();
  waiting.close();
});
