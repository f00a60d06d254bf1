// The emulator's machine faults: with the simulated driver (no engine of its own to fail), the
// operator makes a server's machine lost or its engine unreachable, so a client can test how it
// handles them. Each is written as the engine's report would be (reportStatus: the same
// conditions, power shown, event and mail as with a real engine); a lost machine comes back only
// through the owner's restore, rebuild or reinstall, as with a real engine; an unreachable engine
// is cleared by removing the fault.

import type { Platform } from '../platform/context.ts';
import { Conflict, NotFound } from '../platform/errors.ts';
import { parseRef } from '../platform/ids.ts';
import { transaction } from '../db/transaction.ts';
import {
  engineReachable,
  engineUnreachable,
  machineMissing,
  reportStatus,
  type StatusReport,
} from '../compute/machine-status.ts';
import { serverOperatorRepository } from '../servers/server-operator.repository.ts';

export const machineFaults = ['machine_lost', 'engine_unreachable'] as const;
export type MachineFault = (typeof machineFaults)[number];

const reports: Record<MachineFault, StatusReport> = {
  machine_lost: { observed: { observed_power: null }, conditions: [engineReachable, machineMissing] },
  engine_unreachable: { conditions: [engineUnreachable('the engine does not answer (injected by the fault API)')] },
};

async function report(ctx: Platform, ref: string, status: StatusReport): Promise<string> {
  // A real engine reports its own conditions: faking them would hide the truth.
  if (ctx.compute.engine)
    throw new Conflict('machine faults are for the simulated driver; this engine reports its own');
  return transaction(ctx, async (trx) => {
    const parsed = parseRef(ref);
    const server = parsed ? await serverOperatorRepository.find(trx, parsed) : undefined;
    if (!server) throw new NotFound('server');
    await reportStatus(ctx, trx, server.uuid, status);
    return server.uuid;
  });
}

/** Makes the server's machine lost, or its engine unreachable; answers the server's uuid. */
export function injectMachineFault(ctx: Platform, ref: string, fault: MachineFault): Promise<string> {
  return report(ctx, ref, reports[fault]);
}

/** The engine answers again for the server (a lost machine stays lost: only an action recovers it). */
export function clearMachineFault(ctx: Platform, ref: string): Promise<string> {
  return report(ctx, ref, { conditions: [engineReachable] });
}
