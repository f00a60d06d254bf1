// Deterministic mode (NUBIS_SEED): two seeded instances given the same ~50 requests answer with
// byte-identical bodies — uuids, tokens, root and temporary passwords, activation ids,
// addresses, request ids, fault dice, timestamps, and the state export's hashes and sealed
// values — and a reset starts an instance over, answering the script again as it did first.
// Without a seed the same script answers differently, so the comparison can fail.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startedTogether, startTestInstance, type TestInstance } from './support/instance.ts';
import { type Answer, assertSameAnswers, scriptedSession } from './support/scripted-session.ts';

const root = new URL('..', import.meta.url).pathname;
const seed = 'the-same-seed';

let instances: TestInstance[] = [];
after(async () => {
  await Promise.all(instances.map((nubis) => nubis.close()));
});

describe('NUBIS_SEED', () => {
  let first: Answer[];
  before(async () => {
    instances = await startedTogether([
      startTestInstance({ NUBIS_MODE: 'emulator', NUBIS_SEED: seed }),
      startTestInstance({ NUBIS_MODE: 'emulator', NUBIS_SEED: seed }),
      startTestInstance({ NUBIS_MODE: 'emulator' }),
    ]);
    first = await scriptedSession(instances[0]!);
  });

  test('two seeded instances answer the same script with identical bodies', async () => {
    assert.ok(first.length >= 50, `${first.length} calls`);
    if (process.env.DEBUG_SCRIPT)
      console.log(first.map((a) => `${a.status} ${a.call} ${a.text.slice(0, 150)}`).join('\n'));
    assertSameAnswers(first, await scriptedSession(instances[1]!));
  });

  test('a reset starts a seeded instance over: the script answers as the first time', async () => {
    const reset = await fetch(`${instances[0]!.url}/admin/reset`, {
      method: 'POST',
      headers: { authorization: `Bearer ${instances[0]!.config.adminToken}` },
    });
    assert.equal(reset.status, 200);
    assertSameAnswers(first, await scriptedSession(instances[0]!));
  });

  test('without a seed the same script answers differently', async () => {
    const unseeded = await scriptedSession(instances[2]!);
    assert.notDeepEqual(
      unseeded.map((answer) => answer.text),
      first.map((answer) => answer.text),
    );
  });

  test('a seed is refused outside the emulator, and with the system clock', () => {
    for (const env of [{ NUBIS_SEED: seed }, { NUBIS_SEED: seed, NUBIS_MODE: 'emulator', CLOCK: 'system' }]) {
      const run = spawnSync(
        process.execPath,
        ['-e', `import('./src/config.ts').then(m => m.loadConfig(${JSON.stringify(env)}))`],
        { cwd: root, encoding: 'utf8' },
      );
      assert.notEqual(run.status, 0);
      assert.match(run.stderr, /NUBIS_SEED/);
    }
  });
});
