// The process's last line of defence, for an error that escaped every listener (each one is meant
// to catch its own). A promise rejected with no one to handle it abandoned one piece of work: it
// is logged with its cause and serving goes on. An uncaught exception may have left any state
// half-changed (Node's own guidance), so it is logged and the instance shuts down in order, for
// its supervisor to start it again.

import type { EventEmitter } from 'node:events';
import type { Logger } from './context.ts';

/** Installs the guard on `target` (the process); `shutDown` runs once, at the first uncaught exception. */
export function guardProcess(log: Logger, shutDown: () => void, target: EventEmitter = process): void {
  let shuttingDown = false;
  target.on('unhandledRejection', (reason: unknown) => {
    log.error(
      { err: reason },
      'a promise was rejected with no handler: the work it did was abandoned; serving goes on',
    );
  });
  target.on('uncaughtException', (error: Error) => {
    log.error({ err: error }, 'uncaught exception: shutting down');
    if (shuttingDown) return;
    shuttingDown = true;
    shutDown();
  });
}
