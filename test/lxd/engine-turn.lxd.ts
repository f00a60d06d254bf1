// Two processes on one engine make containers one at a time (engine-turn.ts): the turn another
// process holds keeps this one waiting until it is given back, is not taken while its holder pushes
// it on past its first lapse, and lapses once its holder is killed. Each holder is a process of its
// own (engine-turn-holder.ts), as two Nubis processes are; the turn is a profile of the engine's
// own. Run by `npm run test:lxd`.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { after, test } from 'node:test';
import { engineTurn, LxdClient, type RequestOptions } from '../../src/compute/lxd-engine.ts';
import { engine, eventually, lxdUrl } from './support.ts';

const name = 'nubis-turn-test';
const lxd = engine();

after(async () => {
  await lxd.call('DELETE', `/1.0/profiles/${name}`).catch(() => {});
  lxd.close();
});

/** A client that counts this process's attempts to take the turn. */
class CountingClient extends LxdClient {
  attempts = 0;
  override call<T = unknown>(method: string, path: string, options?: RequestOptions) {
    if (method === 'POST' && path === '/1.0/profiles') this.attempts += 1;
    return super.call<T>(method, path, options);
  }
}

/** The other process: resolves once it holds the turn. */
async function otherHolder(lapseMs: number): Promise<{ child: ChildProcess; lines: AsyncIterator<string> }> {
  const child = spawn(process.execPath, ['test/lxd/engine-turn-holder.ts'], {
    env: { ...process.env, TURN_NAME: name, TURN_LAPSE_MS: String(lapseMs) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  assert.equal((await lines.next()).value, 'holding');
  return { child, lines };
}

/** The profile's description while it exists. */
async function turnDescription(): Promise<string | null> {
  const answer = await lxd.rawRequest('GET', `/1.0/profiles/${name}`);
  return answer.status === 404 ? null : JSON.parse(answer.body.toString('utf8')).metadata.description;
}

test('a turn another process holds keeps this one waiting, past its first lapse, until it is given back', async () => {
  // A lapse of 3 s: the holder pushes it on every second.
  const other = await otherHolder(3000);
  const first = await turnDescription();
  assert.match(first ?? '', /held by holder\/\d+ until /);
  const client = new CountingClient({ url: lxdUrl });
  const order: string[] = [];
  const mine = engineTurn(client, { name, pollMs: 100 })(async () => {
    order.push('mine');
  });
  // Waiting on the clock only to pass the other's first lapse: its hold must have been pushed on.
  const firstUntil = Date.parse(first!.split(' until ')[1]!);
  await eventually('the other hold is past its first lapse, pushed on, this one still trying', 30, async () =>
    Date.now() > firstUntil + 500 && client.attempts > 3 ? true : undefined,
  );
  assert.equal(order.length, 0, 'this process did not get the turn while the other held it');
  assert.notEqual(await turnDescription(), first, 'the holder pushed its hold on');
  order.push('given');
  other.child.stdin!.write('give\n');
  assert.equal((await other.lines.next()).value, 'given');
  await mine;
  assert.deepEqual(order, ['given', 'mine']);
  assert.equal(await turnDescription(), null, 'given back: the profile is gone');
  client.close();
});

test('the turn of a process killed while holding it lapses, and the next taker gets it', async () => {
  const other = await otherHolder(2000);
  other.child.kill('SIGKILL');
  await once(other.child, 'exit');
  assert.match((await turnDescription()) ?? '', /held by holder\//, 'the dead holder left its turn');
  const client = new LxdClient({ url: lxdUrl });
  let ran = false;
  await engineTurn(client, { name, pollMs: 100 })(async () => {
    ran = true;
    assert.match((await turnDescription()) ?? '', new RegExp(`held by \\S+/${process.pid}/`));
  });
  assert.ok(ran);
  assert.equal(await turnDescription(), null);
  client.close();
});
