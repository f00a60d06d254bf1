// Work started after a transaction commits, without the caller waiting (mail delivery, PTR
// publishing): a failure is logged and left to that work's sweep, which retries it; the runs still
// going are kept per platform, so shutdown can wait for them before storage closes.

import type { Platform } from './context.ts';

export interface AfterCommitWork {
  /** Starts a run now; never throws, never makes the caller wait. */
  kick(ctx: Platform): void;
  /** Waits for the runs kick started on this platform. */
  settle(ctx: Platform): Promise<void>;
}

export function afterCommitWork(what: string, run: (ctx: Platform) => Promise<unknown>): AfterCommitWork {
  const runs = new WeakMap<Platform, Set<Promise<void>>>();
  return {
    kick(ctx) {
      let running = runs.get(ctx);
      if (!running) {
        running = new Set();
        runs.set(ctx, running);
      }
      const started: Promise<void> = run(ctx)
        .then(
          () => undefined,
          (error: unknown) =>
            ctx.log.warn({ err: (error as Error).message }, `${what} round failed; the sweep retries`),
        )
        .finally(() => running.delete(started));
      running.add(started);
    },
    async settle(ctx) {
      await Promise.all([...(runs.get(ctx) ?? [])]);
    },
  };
}
