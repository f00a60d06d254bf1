// Machines the engine runs under Nubis's names for a server Nubis does not know: what a restore of
// an older backup of Nubis's database leaves (the servers made after the backup), or a row removed
// by hand. Never removed on their own (the database may be the one that is wrong, and a customer's
// disk is in there): each reconciliation reports them (a warning once each, the gauge
// nubis_machines_orphaned, GET /admin/machines/orphans) and the operator removes one explicitly.

import type { Platform } from '../platform/context.ts';
import { Conflict, NotFound } from '../platform/errors.ts';
import { transaction } from '../db/transaction.ts';
import type { EngineObservation, Power } from './compute-driver.ts';
import { computeRepository } from './compute.repository.ts';
import { jobRepository } from './job.repository.ts';
import { queueConverge } from './job-queue.ts';

/** An engine machine no server of Nubis's database owns. */
export interface OrphanMachine {
  /** The server uuid in the machine's name (the engine's own name, e.g. nubis-<uuid>, in `instance`). */
  uuid: string;
  instance: string | null;
  power: Power;
  /** Clock ms of the reconciliation that first found it. */
  firstSeen: number;
  /** The operator asked for its removal: a job is queued. */
  removing: boolean;
}

/** Each instance's view as of its last reconciliation, by uuid. */
const orphansOf = new WeakMap<Platform['compute'], Map<string, OrphanMachine>>();

function orphans(ctx: Platform): Map<string, OrphanMachine> {
  let found = orphansOf.get(ctx.compute);
  if (!found) {
    found = new Map();
    orphansOf.set(ctx.compute, found);
  }
  return found;
}

/** The machines among `uuids` whose uuid no server row holds now: the candidates for orphans. */
export async function unownedMachines(ctx: Platform, uuids: readonly string[]): Promise<string[]> {
  const held = await computeRepository.serversAmong(ctx.db, uuids);
  return uuids.filter((uuid) => !held.has(uuid));
}

/**
 * Takes one reconciliation's view: the machines seen whose uuid no server row held when read
 * after the engine answered (`unownedMachines`: a server made meanwhile has its row before its
 * machine, so is not taken for one), and no job line works on (a removal on its way to the engine
 * is not an orphan). `only`: the round read just these.
 */
export async function noteOrphanMachines(
  ctx: Platform,
  unowned: ReadonlyMap<string, EngineObservation>,
  now: number,
  only?: ReadonlySet<string>,
): Promise<void> {
  const previous = orphans(ctx);
  // A round that read only the machines whose events were heard (`only`) judges those alone:
  // the others stay as the last full round found them (one removed is heard, and goes here).
  const next = new Map<string, OrphanMachine>(only ? [...previous].filter(([uuid]) => !only.has(uuid)) : []);
  if (unowned.size > 0) {
    const busy = await jobRepository.busyLines(ctx.db);
    for (const [uuid, observation] of unowned) {
      const before = previous.get(uuid);
      // Its removal, once queued, shows until the engine no longer has it.
      if (busy.has(uuid) && !before?.removing) continue;
      next.set(uuid, {
        uuid,
        instance: observation.instance ?? null,
        power: observation.power,
        firstSeen: before?.firstSeen ?? now,
        removing: before?.removing ?? false,
      });
      if (!before)
        ctx.log.warn(
          { server: uuid, instance: observation.instance, power: observation.power },
          'an engine machine belongs to no server Nubis knows (a restored older database?): kept; see GET /admin/machines/orphans',
        );
    }
  }
  previous.clear();
  for (const [uuid, orphan] of next) previous.set(uuid, orphan);
}

/** The orphaned machines as of this instance's last reconciliation, by uuid. */
export function listOrphanMachines(ctx: Platform): OrphanMachine[] {
  return [...orphans(ctx).values()].sort((a, b) => a.uuid.localeCompare(b.uuid));
}

/**
 * The operator's removal of one orphaned machine: its instance, rescue system and engine backups
 * go (the same job as a removed server's, reading no server). 404 unless the last reconciliation
 * reported it; 409 when a server holds that uuid by now.
 */
export async function removeOrphanMachine(ctx: Platform, uuid: string): Promise<OrphanMachine> {
  const orphan = orphans(ctx).get(uuid);
  if (!orphan) throw new NotFound('orphaned machine');
  await transaction(ctx, async (trx) => {
    if (await computeRepository.serverExists(trx, uuid))
      throw new Conflict('a server holds this machine now: it is no orphan');
    await queueConverge(ctx, trx, uuid);
  });
  orphan.removing = true;
  ctx.log.warn(
    { server: uuid, instance: orphan.instance },
    'an orphaned engine machine is being removed by the operator',
  );
  return orphan;
}
