// The log lines a test server writes, captured as they are written, so a test can assert that
// client input never produces an error-level line (level 50 and above).

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { createAccount, type TestAccount } from './accounts.ts';
import { startTestInstance, type TestInstance } from './instance.ts';

export interface CapturedLogs {
  lines(): Record<string, unknown>[];
  /** Lines of level error or fatal. */
  errors(): Record<string, unknown>[];
}

/** Starts capturing: the server must log at `warn` or more detail for errors to be seen. */
export function captureLogs(nubis: TestInstance): CapturedLogs {
  const logger = nubis.running.ctx.log as unknown as Record<symbol, { write(chunk: string): unknown } | undefined>;
  const stream = logger[pino.symbols.streamSym];
  if (!stream) throw new Error('the test server has no log stream: start it with LOG_LEVEL set');
  const captured: Record<string, unknown>[] = [];
  const write = stream.write.bind(stream);
  stream.write = (chunk: string) => {
    for (const text of chunk.split('\n').filter(Boolean)) {
      try {
        captured.push(JSON.parse(text));
      } catch {
        captured.push({ level: 60, msg: text });
      }
    }
    return write(chunk);
  };
  return {
    lines: () => captured,
    errors: () => captured.filter((line) => typeof line.level === 'number' && line.level >= 50),
  };
}

/**
 * A hostile-client suite, at the file's top level: a Nubis logging at `warn` (`env` over it), its
 * logs captured, an account; after every test no error-level line was logged (client input never
 * makes one), and after the file Nubis closes.
 */
export async function hostileClientSuite(
  env: Record<string, string>,
): Promise<{ nubis: TestInstance; account: TestAccount; logs: CapturedLogs }> {
  const nubis = await startTestInstance({ LOG_LEVEL: 'warn', ...env });
  const logs = captureLogs(nubis);
  const account = await createAccount(nubis);
  after(() => nubis.close());
  test.afterEach(() => {
    assert.deepEqual(logs.errors(), [], 'client input produced no error-level log line');
  });
  return { nubis, account, logs };
}
