// `npx nubis dev --ready-json`, as a fixture in another language starts it: a SIGTERM sent to the
// npx process alone (Python's terminate(), Node's kill()) ends the server too. npx runs the bin
// through `sh -c`, which dies of the signal without passing it on; the server notices that what
// launched it is gone (src/platform/launcher.ts) and stops.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { isWrapper } from '../src/platform/launcher.ts';

const root = new URL('..', import.meta.url).pathname;

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/readyz`);
    return true;
  } catch {
    return false;
  }
}

test('a SIGTERM to npx stops the server it started', async () => {
  const env: Record<string, string> = { NUBIS_SEED: 'ready-json-signal' };
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !/^(PORT|DATA_DIR|DATABASE_URL|ADMIN_TOKEN|NUBIS_.*|TEST_.*)$/.test(key))
      env[key] = value;
  const npx = spawn('npx', ['nubis', 'dev', '--port', '0', '--ready-json'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
    // A group of its own, so that whatever is left is stopped at the end even when the check fails.
    detached: true,
  });
  try {
    const [line] = (await once(createInterface({ input: npx.stdout }), 'line')) as [string];
    const { url } = JSON.parse(line) as { url: string };
    assert.equal(await answers(url), true);
    npx.kill('SIGTERM');
    await once(npx, 'exit');
    // The server checks its launchers twice a second and then drains: give it ten seconds at most.
    const deadline = Date.now() + 10_000;
    while ((await answers(url)) && Date.now() < deadline) await sleep(100);
    assert.equal(await answers(url), false, `${url} still answers after npx was stopped`);
  } finally {
    try {
      process.kill(-npx.pid!, 'SIGKILL');
    } catch {}
  }
});

test('the wrappers between a fixture and the server are told from the fixture itself', () => {
  for (const command of [
    'npm exec nubis dev --port 0',
    "sh -c 'nubis' dev --port 0",
    '/bin/sh -c nubis dev',
    'npx nubis dev',
  ])
    assert.equal(isWrapper(command), true, command);
  for (const command of ['python3 -m pytest', 'node test.js', '/usr/bin/node --test', 'bash', 'npmx'])
    assert.equal(isWrapper(command), false, command);
});
