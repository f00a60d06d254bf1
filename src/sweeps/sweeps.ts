// The periodic sweeps: work that must really happen later (mail delivery retries, scheduled
// backups, out-of-funds actions). Each sweep is idempotent and safe on every instance at once.

import type { Platform } from '../platform/context.ts';
import { deliverPendingMail } from '../mail/mail.service.ts';
import { sweepOutOfFunds } from '../billing/out-of-funds.ts';
import { runBackupSweep } from '../snapshots/backup.sweep.ts';

export interface Sweep {
  name: string;
  run(ctx: Platform): Promise<unknown>;
}

/** Every sweep, in the order a round runs them. Later issues add theirs here. */
export const sweeps: Sweep[] = [
  { name: 'out of funds', run: sweepOutOfFunds },
  { name: 'mail delivery', run: deliverPendingMail },
  { name: 'daily backups', run: runBackupSweep },
];

export async function runSweepRound(ctx: Platform): Promise<void> {
  for (const sweep of sweeps) {
    try {
      await sweep.run(ctx);
    } catch (error) {
      ctx.log.error({ sweep: sweep.name, err: error }, 'sweep failed; it runs again next round');
    }
  }
}

/** Runs a round every interval until stopped; rounds never overlap. */
export function startSweeper(ctx: Platform, intervalMs: number): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (!running)
      running = runSweepRound(ctx).finally(() => {
        running = null;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
