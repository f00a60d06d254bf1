// A server's status apart from its spec (Kubernetes' spec/status): what the engine last reported
// of its machine (power, the disk and power generations it applied) and the conditions seen
// (EngineReachable, MachinePresent, DiskConsistent, Degraded), which only the engine's reports
// write; `power`, `disk_generation` and `power_generation` stay the spec, which only actions write.
// All null until the engine first reports (the simulated driver has none: it shows the spec).
// Beside them, a snapshot's or backup's copy that the engine gave up on: `failed`, with its reason.

import type { Kysely } from 'kysely';

export function serverStatus() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('servers').addColumn('observed_power', 'text').execute();
      await db.schema.alterTable('servers').addColumn('observed_disk_generation', 'integer').execute();
      await db.schema.alterTable('servers').addColumn('observed_power_generation', 'integer').execute();
      // JSON array of conditions (src/compute/machine-conditions.ts), each with its status, reason and time.
      await db.schema.alterTable('servers').addColumn('conditions', 'text').execute();
      await db.schema.alterTable('snapshots').addColumn('failure', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('snapshots').dropColumn('failure').execute();
      for (const column of ['conditions', 'observed_power_generation', 'observed_disk_generation', 'observed_power'])
        await db.schema.alterTable('servers').dropColumn(column).execute();
    },
  };
}
