// The compute seam: a server's disk and boot generations (what the engine converges to), the
// job queue's lines and actions as the seam names them, and the traffic meter (the last NIC
// reading of each server, and the bytes of each server in each UTC calendar month).

import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './column-types.ts';

interface OldJob {
  id: number;
  key: string;
  line: string;
  action: string;
  payload: string;
  attempts: number;
  run_at: number;
  created_at: number;
}

/** An old job's action and payload as the seam names them (a server's transitions all converge it). */
function renamed(job: OldJob): { key: string; action: string; payload: string } {
  const snapshot = (JSON.parse(job.payload) as { snapshot?: string }).snapshot ?? '';
  const artifact = (kind: string) => ({
    key: `${job.line}:${kind}:${snapshot}`,
    action: kind,
    payload: JSON.stringify({ kind, snapshot, server: job.line }),
  });
  switch (job.action) {
    case 'snapshotting':
      return artifact('takeSnapshot');
    case 'backup':
      return artifact('takeBackup');
    case 'forget-snapshot':
      return artifact('forgetImage');
    case 'forget-vpc':
      return {
        key: `${job.line}:forgetVpcNetwork`,
        action: 'forgetVpcNetwork',
        payload: JSON.stringify({ kind: 'forgetVpcNetwork', vpc: job.line }),
      };
    default:
      return { key: `${job.line}:converge`, action: 'converge', payload: '{}' };
  }
}

export function computeSeam(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('servers')
        .addColumn('disk_generation', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('servers')
        .addColumn('power_generation', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // A job waits in a line (a server's, or a VPC's for its network): not always a server.
      await db.schema.alterTable('compute_jobs').renameColumn('server_uuid', 'line').execute();
      const jobs = (await sql<OldJob>`select * from compute_jobs order by id`.execute(db)).rows;
      await sql`delete from compute_jobs`.execute(db);
      const kept = new Map<string, OldJob & { action: string; payload: string; key: string }>();
      for (const job of jobs) kept.set(renamed(job).key, { ...job, ...renamed(job) });
      for (const job of kept.values())
        await sql`insert into compute_jobs (key, line, action, payload, attempts, run_at, locked_until, last_error, created_at)
          values (${job.key}, ${job.line}, ${job.action}, ${job.payload}, 0, ${job.run_at}, null, null, ${job.created_at})`.execute(
          db,
        );

      await withId(db.schema.createTable('traffic_readings'), dialect)
        .addColumn('server_uuid', 'text', (c) => c.notNull().unique())
        .addColumn('epoch', 'text', (c) => c.notNull())
        .addColumn('counter', 'bigint', (c) => c.notNull())
        .addColumn('read_at', 'bigint', (c) => c.notNull())
        .execute();
      await withId(db.schema.createTable('traffic_months'), dialect)
        .addColumn('server_uuid', 'text', (c) => c.notNull())
        .addColumn('month_start', 'bigint', (c) => c.notNull())
        .addColumn('bytes', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('traffic_months_server_month', ['server_uuid', 'month_start'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('traffic_months').execute();
      await db.schema.dropTable('traffic_readings').execute();
      await db.schema.alterTable('compute_jobs').renameColumn('line', 'server_uuid').execute();
      await db.schema.alterTable('servers').dropColumn('power_generation').execute();
      await db.schema.alterTable('servers').dropColumn('disk_generation').execute();
    },
  };
}
