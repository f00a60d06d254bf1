// Issue 34: one log format. What `nubis serve` and `nubis dev --ready-json` print from start to
// stop is pino's JSON lines only, with one "listening" line carrying what the instance runs on;
// `--ready-json` keeps stdout for its one ready line.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

const root = new URL('..', import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), 'nubis-start-log-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs `nubis <args>` until `ready` holds of its output, then stops it with SIGTERM; answers all it printed. */
async function run(
  args: string[],
  ready: (out: { stdout: string; stderr: string }) => boolean,
  env: Record<string, string> = {},
) {
  const child = spawn(process.execPath, ['bin/nubis.ts', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, SWEEPS: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  let stopping = false;
  const check = () => {
    if (!stopping && ready(out)) {
      stopping = true;
      child.kill('SIGTERM');
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    out.stdout += chunk.toString();
    check();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out.stderr += chunk.toString();
    check();
  });
  // A safety net, not a wait: a start that never gets ready fails here rather than hanging the suite.
  const deadline = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(deadline);
  assert.ok(stopping, `exited ${code} before it was ready: ${out.stderr}${out.stdout}`);
  return out;
}

/** Every line parsed as one of pino's (a numeric level, a time, a message); a line that is not fails here. */
function pinoLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      assert.equal(typeof entry.level, 'number', line);
      assert.equal(typeof entry.time, 'number', line);
      assert.equal(typeof entry.msg, 'string', line);
      return entry;
    });
}

function oneListeningLine(lines: Record<string, unknown>[]): Record<string, unknown> {
  const listening = lines.filter((entry) => /listening/.test(String(entry.msg)));
  assert.equal(listening.length, 1, JSON.stringify(listening));
  const [line] = listening as [Record<string, unknown>];
  assert.match(String(line.msg), /^Server listening at http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(line.url, String(line.msg).slice('Server listening at '.length));
  assert.equal(line.storage, 'sqlite');
  assert.match(String(line.code), /^(prebuilt|sources)$/);
  return line;
}

describe('the start-up log', () => {
  test('nubis serve: pino lines only, on stdout, and one listening line', async () => {
    const out = await run(['serve'], ({ stdout }) => /listening at/.test(stdout));
    assert.equal(out.stderr, '');
    const line = oneListeningLine(pinoLines(out.stdout));
    assert.equal(line.clock, 'system');
  });

  test('the listening line is written at any LOG_LEVEL but silent', async () => {
    for (const level of ['warn', 'error']) {
      const out = await run(['serve'], ({ stdout }) => /listening at/.test(stdout), { LOG_LEVEL: level });
      oneListeningLine(pinoLines(out.stdout));
    }
  });

  test('nubis dev --ready-json: the ready line alone on stdout; the log, greeting included, pino lines on stderr', async () => {
    const out = await run(['dev', '--ready-json'], ({ stderr }) => /emulator ready/.test(stderr));
    const stdout = out.stdout.split('\n').filter(Boolean);
    assert.equal(stdout.length, 1, out.stdout);
    const ready = JSON.parse(stdout[0]!);
    const lines = pinoLines(out.stderr);
    const line = oneListeningLine(lines);
    assert.equal(line.clock, 'virtual');
    assert.equal(ready.url, line.url);
    const greeting = lines.find((entry) => /^emulator ready/.test(String(entry.msg)));
    assert.ok(greeting, out.stderr);
    assert.equal((greeting.account as { token: string }).token, ready.account.token);
    assert.match(String(greeting.msg), new RegExp(`NUBIS_TOKEN=${ready.account.token}`));
  });
});
