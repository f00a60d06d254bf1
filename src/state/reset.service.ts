// The operator's reset, and a seeded emulator's start. Without a seed a reset empties every
// account and resource (ids keep counting, the clock stays). With a seed (NUBIS_SEED) a reset is
// a start over: ids from 1, the random stream and the clock back at the seed's beginning, the
// emulator's account made again, so the requests that follow answer exactly as after a start.

import { restartIdSequences } from '../db/wipe.ts';
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
  await restartIdSequences(ctx.db, ctx.dialect);
  await settingsRepository.set(ctx.db, 'clock_offset_ms', '0');
  if (ctx.clock instanceof VirtualClock) ctx.clock.setOffset(0);
  ctx.random.rewind();
  return ctx.config.mode === 'emulator' ? seedEmulatorAccount(ctx) : null;
}
