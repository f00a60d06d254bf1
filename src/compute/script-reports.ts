// The first-boot script's outcome, collected: at each reconciliation, every server with a
// script_url whose outcome is not known yet (and no job under way: a new disk is being made)
// asks the engine what its guest recorded; a report is stored once and told as a
// `server.script` event. A rebuild, reinstall or restore clears it (server-actions.service.ts).

import type { Platform } from '../platform/context.ts';
import { recordEvent } from '../events/event.service.ts';
import { scriptView, type StoredScriptOutcome } from './script-outcome.ts';
import { transaction } from '../db/transaction.ts';
import { computeRepository } from './compute.repository.ts';

/** Reads the reports that arrived; answers how many were stored. */
export async function collectScriptReports(ctx: Platform): Promise<number> {
  const engine = ctx.compute.engine;
  if (!engine) return 0;
  const now = ctx.clock.now();
  const waiting = await computeRepository.serversAwaitingScript(ctx.db, now);
  let stored = 0;
  for (const server of waiting) {
    const report = await engine.scriptReport(server.uuid).catch((error: unknown) => {
      ctx.log.warn({ server: server.uuid, err: (error as Error).message }, 'reading the script outcome failed');
      return null;
    });
    if (!report) continue;
    const outcome: StoredScriptOutcome = { ...report, reportedAt: ctx.clock.now() };
    stored += await transaction(ctx, async (trx) => {
      if (!(await computeRepository.storeScriptOutcome(trx, server.id, JSON.stringify(outcome)))) return 0;
      const view = scriptView(server.script_url, JSON.stringify(outcome), true)!;
      await recordEvent(ctx, trx, {
        accountId: server.account_id,
        resource: { type: 'server', uuid: server.uuid },
        type: 'server.script',
        data: { state: view.state, stage: view.stage, exit_status: view.exit_status, output: view.output },
      });
      return 1;
    });
  }
  return stored;
}
