// The daily backup sweep: one backup per server with backups on per UTC day (its slot), and
// deletion of backups past their retention. Idempotent, and safe on several instances at once:
// the unique (server, slot) index admits one backup per slot whoever inserts it.

import type { Platform } from '../platform/context.ts';
import { isProvisioning } from '../compute/power-state.ts';
import { snapshotRepository } from './snapshot.repository.ts';
import { artifacts } from '../compute/compute-driver.ts';
import { imageEstimate, recordIntent } from '../compute/machine-intents.ts';
import { imageRemoved, imageTaken } from '../events/resource-events.ts';
import { transaction } from '../db/transaction.ts';

const dayMs = 86_400_000;

/** The backup slot of an instant: days since the epoch (UTC). */
export function backupSlot(now: number): number {
  return Math.floor(now / dayMs);
}

export async function runBackupSweep(ctx: Platform, pageSize = 200): Promise<{ taken: number; expired: number }> {
  const now = ctx.clock.now();
  const slot = backupSlot(now);
  // Each expired backup is removed once (whichever instance deletes it tells it), and its engine
  // image goes with it.
  const expired = await transaction(ctx, async (trx) => {
    const gone = await snapshotRepository.deleteExpiredBackups(trx, ctx.dialect, now);
    for (const backup of gone) {
      await recordIntent(ctx, trx, artifacts.forgetImage(backup));
      await imageRemoved(ctx, trx, backup, 'sweep');
    }
    return gone.length;
  });
  let taken = 0;
  let afterId = 0;
  for (;;) {
    const due = await snapshotRepository.serversDueBackup(ctx.db, slot, afterId, pageSize);
    for (const candidate of due) {
      afterId = candidate.id;
      if (isProvisioning(candidate, now)) continue;
      const made = await transaction(ctx, async (trx) => {
        // Re-read under a lock: the server may have gone or turned backups off meanwhile; one
        // another instance holds is skipped and picked up by a later round.
        const server = await snapshotRepository.lockServerForBackup(ctx.dialect, trx, candidate.id);
        if (!server) return false;
        const estimate = imageEstimate(ctx, server, now);
        const backup = await snapshotRepository.insertBackup(
          trx,
          {
            uuid: ctx.random.uuid(),
            server,
            name: `backup ${new Date(slot * dayMs).toISOString().slice(0, 10)}`,
            sizeGb: estimate.sizeGb,
            readyAt: now + estimate.durationMs,
            createdAt: now,
          },
          { expiresAt: now + ctx.config.backupRetentionDays * dayMs, slot },
        );
        if (!backup) return false;
        await imageTaken(ctx, trx, backup, 'sweep');
        await recordIntent(ctx, trx, artifacts.backup(backup.uuid, server.uuid));
        return true;
      });
      if (made) taken++;
    }
    if (due.length < pageSize) break;
  }
  return { taken, expired };
}
