// The emulator's machine faults: with the simulated driver (no engine of its own to fail), the
// operator makes a server's machine lost, its create given up or its engine unreachable, so a
// client can test how it handles them. Each is written as the engine's report would be
// (reportStatus: the same conditions, power shown, event and mail as with a real engine); a lost
// machine or a disk never made comes back only through the owner's restore, rebuild or
// reinstall (or goes with a removal), as with a real engine; an unreachable engine is cleared by
// removing the fault.

import type { Platform } from '../platform/context.ts';
import { Conflict, NotFound } from '../platform/errors.ts';
import { parseRef } from '../platform/ids.ts';
import { transaction } from '../db/transaction.ts';
import {
  createFailed,
  engineReachable,
  engineUnreachable,
  machineMissing,
  reportStatus,
  type StatusReport,
} from '../compute/machine-status.ts';
import { serverOperatorRepository } from '../servers/server-operator.repository.ts';
import { jobRepository } from '../compute/job.repository.ts';
import { computeRepository } from '../compute/compute.repository.ts';
import { provisioningTransition } from '../compute/power-state.ts';
import { serverSettledByEngine } from '../events/resource-events.ts';
import type { Tx } from '../db/database.ts';

export const machineFaults = ['machine_lost', 'create_failed', 'engine_unreachable'] as const;
export type MachineFault = (typeof machineFaults)[number];

const injected = 'injected by the fault API';

const reports: Record<MachineFault, StatusReport> = {
  machine_lost: { observed: { power: null }, conditions: [engineReachable, machineMissing] },
  create_failed: { observed: { power: null }, conditions: [engineReachable, createFailed(injected)] },
  engine_unreachable: { conditions: [engineUnreachable(`the engine does not answer (${injected})`)] },
};

/**
 * The engine's job gave up making the server's disk: as when it runs out of attempts, the reason
 * is the operator's (engine_error) and the transition under way ends at once, told by its
 * server.power event with the error; a provisioning so ended leaves the server stopped.
 */
async function giveUp(ctx: Platform, trx: Tx, serverUuid: string): Promise<void> {
  const now = ctx.clock.now();
  const server = await jobRepository.serverAction(trx, serverUuid);
  const underWay = server?.action && (server.action_until ?? 0) > now ? server.action : null;
  const reason = `${underWay ?? provisioningTransition} failed: ${injected} (the engine gave up making the disk)`;
  await jobRepository.setEngineError(trx, serverUuid, reason);
  if (!underWay) return;
  const row = await jobRepository.serverStatus(trx, serverUuid);
  if (!row) return;
  const ended = await computeRepository.changeServer(trx, row.id, {
    transitionUntil: now,
    updatedAt: now,
    ...(underWay === provisioningTransition ? { power: 'stopped' as const } : {}),
  });
  await serverSettledByEngine(ctx, trx, ended, underWay);
}

async function report(
  ctx: Platform,
  ref: string,
  status: StatusReport,
  then?: (trx: Tx, serverUuid: string) => Promise<void>,
): Promise<string> {
  // A real engine reports its own conditions: faking them would hide the truth.
  if (ctx.compute.engine)
    throw new Conflict('machine faults are for the simulated driver; this engine reports its own');
  return transaction(ctx, async (trx) => {
    const parsed = parseRef(ref);
    const server = parsed ? await serverOperatorRepository.find(trx, parsed) : undefined;
    if (!server) throw new NotFound('server');
    await reportStatus(ctx, trx, server.uuid, status);
    await then?.(trx, server.uuid);
    return server.uuid;
  });
}

/** Makes the server's machine lost, its create given up, or its engine unreachable; answers the server's uuid. */
export function injectMachineFault(ctx: Platform, ref: string, fault: MachineFault): Promise<string> {
  return report(
    ctx,
    ref,
    reports[fault],
    fault === 'create_failed' ? (trx, serverUuid) => giveUp(ctx, trx, serverUuid) : undefined,
  );
}

/**
 * The engine answers again for the server (a lost machine, or a disk never made, stays so: only
 * an action recovers it).
 */
export function clearMachineFault(ctx: Platform, ref: string): Promise<string> {
  return report(ctx, ref, { conditions: [engineReachable] });
}
