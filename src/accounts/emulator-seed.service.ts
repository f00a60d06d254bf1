// The emulator's seeded account (NUBIS_MODE=emulator, `nubis dev`): registered, activated and
// credited the first time, then found again on every start, so its token can be printed.

import type { Platform } from '../platform/context.ts';
import { tokenForLogin } from '../tokens/token.service.ts';
import { accountRepository } from './account.repository.ts';
import { register } from './account.service.ts';
import { creditAccount } from './operator.service.ts';

export const emulatorAccount = {
  email: 'dev@nubis.localhost',
  password: 'nubis-dev-password',
  firstname: 'Dev',
  lastname: 'Eloper',
  country: 'NL',
  creditUsd: 100,
} as const;

export interface SeededAccount {
  email: string;
  password: string;
  token: string;
  /** True when this start registered it (a fresh database, or after a reset). */
  created: boolean;
}

export async function seedEmulatorAccount(ctx: Platform): Promise<SeededAccount> {
  const { email, password, firstname, lastname, country, creditUsd } = emulatorAccount;
  let account = await accountRepository.findByEmail(ctx.db, email);
  let created = false;
  if (!account) {
    await register(ctx, { email, password, firstname, lastname, country, accept_tos: true }, '127.0.0.1');
    account = await accountRepository.findByEmail(ctx.db, email);
    if (!account) throw new Error('the emulator account could not be registered');
    await accountRepository.update(ctx.db, account.id, { activated: true, updatedAt: ctx.clock.now() });
    await creditAccount(ctx, String(account.id), creditUsd, 'emulator seed');
    created = true;
  }
  return { email, password, token: await tokenForLogin(ctx, ctx.db, account.id), created };
}
