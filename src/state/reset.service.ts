// The operator's reset, and a seeded emulator's start. Without a seed a reset empties every
// account and resource (ids keep counting, the clock stays). With a seed (NUBIS_SEED) a reset is
// a start over: ids from 1, the random stream and the clock back at the seed's beginning, the
// emulator's account made again, so the requests that follow answer exactly as after a start.

import { sql } from 'kysely';
import type { Platform } from '../platform/context.ts';
import { VirtualClock } from '../platform/clock.ts';
import { resetAll } from '../accounts/operator.service.ts';
import { seedEmulatorAccount, type SeededAccount } from '../accounts/emulator-seed.service.ts';
import { settingsRepository } from '../settings/settings.repository.ts';

/** Answers the emulator's account when the reset made it again (seeded), else null. */
export async function resetState(ctx: Platform): Promise<SeededAccount | null> {
  await resetAll(ctx);
  return ctx.random.seeded ? startFromSeed(ctx) : null;
}

/**
 * Puts a seeded instance at the seed's beginning (at start, and after each reset); answers the
 * emulator's account. Tables a reset keeps (the audit log) go on counting after their last id.
 */
export async function startFromSeed(ctx: Platform): Promise<SeededAccount | null> {
  if (ctx.dialect === 'sqlite') {
    // Without its row in sqlite_sequence, an autoincrement table starts again after its largest id.
    const known = await sql<{ name: string }>`select name from sqlite_master where name = 'sqlite_sequence'`.execute(
      ctx.db,
    );
    if (known.rows.length) await sql`delete from sqlite_sequence`.execute(ctx.db);
  } else {
    const { rows } = await sql<{ name: string }>`
      select table_name as name from information_schema.columns
      where table_schema = current_schema() and column_name = 'id' and column_default like 'nextval%'`.execute(ctx.db);
    for (const { name } of rows)
      await sql`select setval(pg_get_serial_sequence(${name}, 'id'), coalesce(max(id), 0) + 1, false)
        from ${sql.table(name)}`.execute(ctx.db);
  }
  await settingsRepository.set(ctx.db, 'clock_offset_ms', '0');
  if (ctx.clock instanceof VirtualClock) ctx.clock.setOffset(0);
  ctx.random.rewind();
  return ctx.config.mode === 'emulator' ? seedEmulatorAccount(ctx) : null;
}
