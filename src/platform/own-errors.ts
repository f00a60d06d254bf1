// A listener Node calls outside any request (a server's `connection` or `clientError`, a socket's
// events, a timer a request started) has no one above it to catch what it throws: a throw there
// reaches the process guard, which shuts the instance down. Each such listener is wrapped here:
// what it throws is logged with its cause and the listener's name, and serving goes on.

import type { Logger } from './context.ts';

/**
 * `listener`, catching what it throws: logged at error level naming `where`; then `recover` runs
 * with the same arguments (to close a connection left half-accounted, say), itself guarded.
 */
export function ownErrors<A extends unknown[]>(
  log: Logger,
  where: string,
  listener: (...args: A) => void,
  recover?: (...args: A) => void,
): (...args: A) => void {
  return (...args: A) => {
    try {
      listener(...args);
    } catch (error) {
      log.error({ err: error, listener: where }, `${where} failed; serving goes on`);
      if (!recover) return;
      try {
        recover(...args);
      } catch (again) {
        log.error({ err: again, listener: where }, `${where}: recovering from the failure failed too`);
      }
    }
  };
}
