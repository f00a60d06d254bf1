// The process guard: a rejection no one handled is logged with its cause and the process serves
// on; an uncaught exception is logged and starts one orderly shutdown.

import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { pino } from 'pino';
import { guardProcess } from './process-guard.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, lines };
}

test('an unhandled rejection is logged with its cause; serving goes on', () => {
  const { log, lines } = capture();
  const target = new EventEmitter();
  let shutDowns = 0;
  guardProcess(log, () => shutDowns++, target);
  target.emit('unhandledRejection', new Error('planted rejection'));
  assert.equal(shutDowns, 0);
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.level, 50);
  assert.match(String((lines[0]!.err as { message: string }).message), /planted rejection/);
  assert.match(String((lines[0]!.err as { stack: string }).stack), /process-guard\.test\.ts/);
});

test('an uncaught exception is logged and shuts down once', () => {
  const { log, lines } = capture();
  const target = new EventEmitter();
  let shutDowns = 0;
  guardProcess(log, () => shutDowns++, target);
  target.emit('uncaughtException', new Error('planted throw'));
  target.emit('uncaughtException', new Error('a second one'));
  assert.equal(shutDowns, 1);
  assert.deepEqual(
    lines.map((line) => [line.level, (line.err as { message: string }).message]),
    [
      [50, 'planted throw'],
      [50, 'a second one'],
    ],
  );
});
