// A server's status as the engine reports it, written apart from its spec: the observed power and
// generations and the conditions (src/compute/machine-conditions.ts). Only the engine's reports come here (a
// job's report, reconciliation, a job that found its machine lost, the emulator's machine faults);
// actions write the spec (machine-intents.ts) and never this. A machine found lost is told once,
// when its condition turns: a `server.lost` event and a mail to the owner.

import type { Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { serverLost, serverMoved } from '../events/resource-events.ts';
import { accountRepository } from '../accounts/account.repository.ts';
import { queueMail } from '../mail/mail.service.ts';
import { letterText } from '../mail/letter.ts';
import {
  applyConditions,
  type ConditionReport,
  conditionOf,
  createFailedReason,
  engineUnreachableReason,
  hostLostReason,
  isLost,
  isWithoutMachine,
  machineLostReason,
  parseConditions,
} from './machine-conditions.ts';
import type { ServerRow } from './server-row.ts';
import { jobRepository, type ObservedMachine, type StatusChange } from './job.repository.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { closeInvoiceItems, openInvoiceItems } from '../billing/invoice-items.ts';
import { machineItems, serverItems } from '../billing/pricing.ts';
import { billingRepository } from '../billing/billing.repository.ts';
import type { EngineObservation } from './compute-driver.ts';

/** What one report says of a server's machine. */
export interface StatusReport {
  /** Observed values (absent: unchanged). */
  observed?: ObservedMachine;
  conditions: ConditionReport[];
  /** Clears the engine error (the engine answered for this machine) or sets one. */
  engineError?: string | null;
}

export const engineReachable: ConditionReport = {
  type: 'EngineReachable',
  status: 'true',
  reason: 'EngineAnswered',
  message: 'the engine answered',
};

export function engineUnreachable(message: string): ConditionReport {
  return { type: 'EngineReachable', status: 'false', reason: engineUnreachableReason, message };
}

export const machinePresent: ConditionReport = {
  type: 'MachinePresent',
  status: 'true',
  reason: 'InstanceFound',
  message: 'the engine runs a machine for this server',
};

export const machineMissing: ConditionReport = {
  type: 'MachinePresent',
  status: 'false',
  reason: machineLostReason,
  message: 'the engine no longer has the machine it made for this server; its disk is gone with it',
};

/** The machine is on a host the engine reports offline: lost with it (recovered on another host from an image). */
export function machineOnLostHost(host: string): ConditionReport {
  return {
    type: 'MachinePresent',
    status: 'false',
    reason: hostLostReason,
    message: `the host ${host} the machine ran on is lost (the engine reports it offline); its disk is out of reach with it`,
  };
}

/** The engine answered and reports the machine's host offline: the machine is lost with its host. */
export function hostLostReport(host: string): StatusReport {
  return { observed: { power: null }, conditions: [engineReachable, machineOnLostHost(host)] };
}

const machineNotMade: ConditionReport = {
  type: 'MachinePresent',
  status: 'false',
  reason: 'NotMade',
  message: "the engine has not made this server's disk (its making failed, or is still to come)",
};

/**
 * The engine gave up making the server's disk, and why in the owner's words: the engine's own
 * (host paths and all) stay in engine_error, for the operator.
 */
export function createFailed(engineError: string): ConditionReport {
  const why = /no space left|quota exceeded|not enough space/i.test(engineError)
    ? 'its storage is full'
    : /unreachable|did not answer|ECONNREFUSED|ENOENT/i.test(engineError)
      ? 'the engine could not be reached'
      : 'the engine refused it';
  return {
    type: 'MachinePresent',
    status: 'false',
    reason: createFailedReason,
    message: `the engine could not make this server's disk: ${why}; reinstall, rebuild or restore it to try again, or remove it`,
  };
}

/** DiskConsistent from the generation the machine was made for, compared with the spec's. */
function diskConsistency(made: number | undefined, wanted: number): ConditionReport {
  if (made === undefined)
    return { type: 'DiskConsistent', status: 'unknown', reason: 'NotReported', message: 'the engine did not say' };
  return made === wanted
    ? { type: 'DiskConsistent', status: 'true', reason: 'DiskAsSpecified', message: 'the disk is the one asked for' }
    : {
        type: 'DiskConsistent',
        status: 'false',
        reason: 'DiskGenerationDiffers',
        message: `the machine holds disk generation ${made}; the server asks for ${wanted}`,
      };
}

/** The status a machine the engine reported on (a job's report or an observation) is written with. */
export function seenReport(
  row: Pick<ServerRow, 'disk_generation'>,
  seen: Pick<EngineObservation, 'power' | 'diskGeneration' | 'powerGeneration' | 'host'>,
): StatusReport {
  return {
    observed: {
      power: seen.power,
      ...(seen.host !== undefined ? { host: seen.host } : {}),
      ...(seen.diskGeneration !== undefined ? { diskGeneration: seen.diskGeneration } : {}),
      ...(seen.powerGeneration !== undefined ? { powerGeneration: seen.powerGeneration } : {}),
    },
    conditions: [engineReachable, machinePresent, diskConsistency(seen.diskGeneration, row.disk_generation)],
  };
}

/**
 * The engine answered and has no machine for the server: lost when its disk was made, else not
 * made yet, or not made because its making was given up (that reason stays until a new try).
 */
export function missingReport(
  row: Pick<ServerRow, 'disk_generation' | 'observed_disk_generation' | 'conditions'>,
): StatusReport {
  const made = row.observed_disk_generation === row.disk_generation;
  const givenUp = conditionOf(parseConditions(row.conditions), 'MachinePresent')?.reason === createFailedReason;
  return {
    observed: { power: null },
    conditions: [engineReachable, ...(made ? [machineMissing] : givenUp ? [] : [machineNotMade])],
  };
}

/** The status columns a report is compared with. */
export type StatusRow = Pick<
  ServerRow,
  'engine_error' | 'observed_power' | 'observed_disk_generation' | 'observed_power_generation' | 'host' | 'conditions'
>;

/** What the report changes in the row's status (null: nothing, so a quiet round writes nothing). */
export function statusChange(row: StatusRow, report: StatusReport, now: number): StatusChange | null {
  // A report of observed values alone (the simulated driver's host) leaves the conditions as they are.
  const next = report.conditions.length
    ? applyConditions(row.conditions, report.conditions, now)
    : { changed: false, json: row.conditions };
  const seen = report.observed ?? {};
  const observed: ObservedMachine = {};
  if (seen.power !== undefined && seen.power !== row.observed_power) observed.power = seen.power;
  if (seen.host !== undefined && seen.host !== row.host) observed.host = seen.host;
  if (seen.diskGeneration !== undefined && seen.diskGeneration !== row.observed_disk_generation)
    observed.diskGeneration = seen.diskGeneration;
  if (seen.powerGeneration !== undefined && seen.powerGeneration !== row.observed_power_generation)
    observed.powerGeneration = seen.powerGeneration;
  const errorChanged = report.engineError !== undefined && report.engineError !== row.engine_error;
  if (!next.changed && Object.keys(observed).length === 0 && !errorChanged) return null;
  return {
    observed,
    ...(errorChanged ? { engineError: report.engineError } : {}),
    conditions: next.json,
  };
}

/**
 * Writes the report into the server's status (in the caller's transaction) when it changes
 * anything; a machine that turns lost is told to its owner. Answers the server as written, or
 * null when nothing changed (or the server is gone).
 */
export async function reportStatus(
  ctx: Platform,
  trx: Tx,
  serverUuid: string,
  report: StatusReport,
): Promise<ServerRow | null> {
  const row = await jobRepository.serverStatus(trx, serverUuid);
  if (!row) return null;
  const change = statusChange(row, report, ctx.clock.now());
  if (!change) return null;
  const [before, after] = [parseConditions(row.conditions), parseConditions(change.conditions)];
  const turnsLost = isLost(after) && !isLost(before);
  const turnsWithout = isWithoutMachine(after) && !isWithoutMachine(before);
  const turnsFound = !isWithoutMachine(after) && isWithoutMachine(before);
  // The machine's billing stops with it: the account's lock comes before the server's row.
  if (turnsWithout || turnsFound) await lockAccount(ctx, trx, row.account_id);
  const written = await jobRepository.writeStatus(trx, row.id, row, change);
  if (!written) return null;
  if (turnsWithout) await closeInvoiceItems(ctx, trx, written.uuid, [...machineItems]);
  if (turnsLost) await tellLost(ctx, trx, written);
  // Its host came back with it (the action that makes a new disk resumed billing already otherwise).
  if (turnsFound) await resumeMachineBilling(ctx, trx, written);
  // A machine the engine reports on another host than before moved (an evacuation, or the engine's own doing).
  if (row.host !== null && written.host !== null && written.host !== row.host)
    await serverMoved(ctx, trx, written, row.host, written.host);
  return written;
}

/** The owner learns the machine is lost, and what brings it back (nothing does on its own). */
async function tellLost(ctx: Platform, trx: Tx, server: ServerRow): Promise<void> {
  ctx.log.warn({ server: server.uuid }, 'a server lost its machine in the engine; nothing is made again on its own');
  const present = conditionOf(parseConditions(server.conditions), 'MachinePresent');
  const withHost = present?.reason === hostLostReason;
  await serverLost(ctx, trx, server, present?.message ?? machineMissing.message);
  const account = await accountRepository.addressee(trx, server.account_id);
  await queueMail(ctx, trx, {
    to: account.email,
    subject: withHost
      ? `Your server ${server.name} is lost: the host it ran on failed`
      : `Your server ${server.name} is lost: its machine no longer exists`,
    text: letterText(account.firstname, [
      ...(withHost
        ? [
            `The host machine your server ${server.name} (${server.hostname}, ${server.uuid}) ran on has failed in our`,
            'infrastructure, and its disk is out of reach with it. We have not made a new one in its place: your data',
            'may still be in a backup or snapshot, from which we can recover it on another host.',
          ]
        : [
            `The machine of your server ${server.name} (${server.hostname}, ${server.uuid}) no longer exists in our`,
            'infrastructure, and its disk is gone with it. We have not made a new one in its place: your data may still',
            'be in a backup or snapshot.',
          ]),
      'The server and its licence are not billed while it has no machine.',
      'To bring it back, restore a backup or snapshot, rebuild or reinstall it; or remove it.',
    ]),
  });
}

/** A machine found again (its host came back) is billed again, at its plan and image, unless it is already. */
async function resumeMachineBilling(ctx: Platform, trx: Tx, server: ServerRow): Promise<void> {
  if ((await billingRepository.openItemsOfResource(trx, server.uuid, ['server'])).length) return;
  const plan = ctx.catalog.plans.get(server.plan_id);
  const image = ctx.catalog.images.get(server.image_id);
  if (!plan || !image) return;
  const items = serverItems({ plan, image, backups: false, ddosProtection: false, name: server.name }).filter((item) =>
    (machineItems as readonly string[]).includes(item.resourceType),
  );
  await openInvoiceItems(ctx, trx, server.account_id, server.uuid, items);
}
