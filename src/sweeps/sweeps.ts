// The periodic sweeps: work that must really happen later (mail delivery retries, scheduled
// backups, out-of-funds actions). Each sweep is idempotent and safe on every instance at once.

import type { Platform } from '../platform/context.ts';
import { workOf } from '../platform/metrics.ts';
import { deliverPendingMail } from '../mail/mail.service.ts';
import { publishPendingPtrs } from '../reverse-dns/reverse-dns.service.ts';
import { sweepOutOfFunds } from '../servers/out-of-funds.sweep.ts';
import { sweepOverage } from '../servers/overage.sweep.ts';
import { runBackupSweep } from '../snapshots/backup.sweep.ts';
import { recordDueEvents } from '../events/event.service.ts';
import { deliverWebhooks } from '../events/webhook.service.ts';
import { issueMonthlyDocuments } from '../documents/document.service.ts';
import { expirePendingTransfers } from '../payments/payment.service.ts';
import { expireSimulatedCheckouts } from '../payments/simulated.processor.ts';

export interface Sweep {
  name: string;
  run(ctx: Platform): Promise<unknown>;
}

/** Every sweep, in the order a round runs them. Later issues add theirs here. */
export const sweeps: Sweep[] = [
  { name: 'out of funds', run: sweepOutOfFunds },
  { name: 'abandoned checkouts', run: expireSimulatedCheckouts },
  { name: 'bandwidth overage', run: sweepOverage },
  // Before mail delivery, so a document's mail leaves in the round that issued it.
  { name: 'monthly documents', run: issueMonthlyDocuments },
  { name: 'mail delivery', run: deliverPendingMail },
  // After the out-of-funds sweep, so the PTRs of servers it removed go in the same round.
  { name: 'reverse DNS', run: publishPendingPtrs },
  { name: 'daily backups', run: runBackupSweep },
  { name: 'due events', run: recordDueEvents },
  { name: 'webhook delivery', run: deliverWebhooks },
  { name: 'expired bank transfers', run: expirePendingTransfers },
];

export async function runSweepRound(ctx: Platform): Promise<void> {
  for (const sweep of sweeps) {
    const started = performance.now();
    try {
      const result = await sweep.run(ctx);
      ctx.metrics.sweepRuns.inc({ sweep: sweep.name, outcome: 'ok' });
      ctx.metrics.sweepWork.inc({ sweep: sweep.name }, workOf(result));
    } catch (error) {
      ctx.metrics.sweepRuns.inc({ sweep: sweep.name, outcome: 'failed' });
      ctx.log.error({ sweep: sweep.name, err: error }, 'sweep failed; it runs again next round');
    }
    ctx.metrics.sweepDuration.observe({ sweep: sweep.name }, (performance.now() - started) / 1000);
  }
}

/** Runs a round every interval until stopped; rounds never overlap. */
export function startSweeper(ctx: Platform, intervalMs: number): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (!running)
      // A shared virtual clock may have moved on another instance: read it first.
      running = ctx.clock
        .refresh()
        .catch(() => {})
        .then(() => runSweepRound(ctx))
        .finally(() => {
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
