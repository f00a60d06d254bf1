// What the operator may do to accounts: find, change flags and limits, credit money, and
// wipe everything for a fresh emulator run.

import { emptyTables } from '../db/wipe.ts';
import type { Platform } from '../platform/context.ts';
import { Invalid, NotFound } from '../platform/errors.ts';
import { MAX_BALANCE_MICROS, parseMoney } from '../platform/money.ts';
import { parseRef } from '../platform/ids.ts';
import { listTransactions, recordTransaction, type Transaction } from '../billing/transaction.service.ts';
import { type AccountChanges, accountRepository } from './account.repository.ts';
import type { AccountRow } from './account.table.ts';
import { describeAccount, type AccountInfo } from './account.service.ts';
import { permissionNames } from './permissions.ts';
import { storedPorts, type BlockedPorts } from './port-policy.ts';
import { invalidateActors } from '../tokens/token.service.ts';
import { transaction } from '../db/transaction.ts';
import { changes as machineChanges, recordIntent } from '../compute/machine-intents.ts';
import { serverRepository } from '../servers/server.repository.ts';

export interface AccountPatch {
  activated?: boolean;
  servers_limit?: number;
  smtp?: boolean;
  /** The account's own blocked ports; null goes back to the deployment's default. */
  blocked_ports?: BlockedPorts | null;
  blocked?: boolean;
  permissions?: Record<string, boolean>;
}

/** An account by id, uuid or e-mail (404 when none). */
export async function findAccount(ctx: Platform, ref: string) {
  const parsed = parseRef(ref);
  const account = parsed
    ? 'id' in parsed
      ? await accountRepository.findById(ctx.db, parsed.id)
      : await accountRepository.findByUuid(ctx.db, parsed.uuid)
    : await accountRepository.findByEmail(ctx.db, ref);
  if (!account) throw new NotFound('account');
  return account;
}

/** The account as account/info shows it, plus what only the operator sees. */
export type OperatorAccount = AccountInfo & { blocked: boolean };

async function operatorView(ctx: Platform, row: AccountRow): Promise<OperatorAccount> {
  return { ...(await describeAccount(ctx, row)), blocked: row.blocked === 1 };
}

export async function findAccounts(ctx: Platform, email: string | undefined): Promise<OperatorAccount[]> {
  const rows = await accountRepository.list(ctx.db, email?.trim());
  return Promise.all(rows.map((row) => operatorView(ctx, row)));
}

export async function showAccount(ctx: Platform, ref: string): Promise<OperatorAccount> {
  return operatorView(ctx, await findAccount(ctx, ref));
}

/** An account's transactions as the account sees them (the 100 newest), with the operator's notes. */
export async function accountTransactions(ctx: Platform, ref: string) {
  return listTransactions(ctx, (await findAccount(ctx, ref)).id);
}

export async function patchAccount(ctx: Platform, ref: string, patch: AccountPatch): Promise<OperatorAccount> {
  const account = await findAccount(ctx, ref);
  const changes: AccountChanges = { updatedAt: ctx.clock.now() };
  if (patch.activated !== undefined) changes.activated = patch.activated;
  if (patch.smtp !== undefined) changes.smtp = patch.smtp;
  if (patch.blocked_ports !== undefined) changes.blockedPorts = storedPorts(patch.blocked_ports);
  if (patch.blocked !== undefined) changes.blocked = patch.blocked;
  if (patch.servers_limit !== undefined) changes.serversLimit = patch.servers_limit;
  if (patch.permissions !== undefined) {
    const unknown = Object.keys(patch.permissions).filter(
      (name) => !(permissionNames as readonly string[]).includes(name),
    );
    if (unknown.length)
      throw new Invalid(
        'permissions',
        `unknown permission ${unknown.join(', ')}; known: ${permissionNames.join(', ')}`,
      );
    const current = JSON.parse(account.permissions) as Record<string, boolean>;
    changes.permissions = JSON.stringify({ ...current, ...patch.permissions });
  }
  await transaction(ctx, async (trx) => {
    await accountRepository.update(trx, account.id, changes);
    // What its servers may send changed: each converges its network (the engine's rules with it),
    // rather than every reconciliation rewriting every server's rules.
    if (patch.smtp !== undefined || patch.blocked_ports !== undefined)
      for (const uuid of await serverRepository.uuidsOfAccount(trx, account.id))
        await recordIntent(ctx, trx, machineChanges.network({ uuid }));
  });
  await invalidateActors(ctx, account.id);
  return operatorView(ctx, (await accountRepository.findById(ctx.db, account.id))!);
}

export async function creditAccount(
  ctx: Platform,
  ref: string,
  amount: string | number,
  note: string | undefined,
): Promise<Transaction> {
  let micros: number;
  try {
    micros = parseMoney(amount);
  } catch {
    throw new Invalid('amount', 'bad value: a decimal amount in USD with at most 6 decimals');
  }
  if (micros === 0) throw new Invalid('amount', 'bad value: must not be zero');
  const account = await findAccount(ctx, ref);
  if (Math.abs(Number(account.settled_micros) + micros) > MAX_BALANCE_MICROS)
    throw new Invalid('amount', 'bad value: the balance must stay within a billion USD either way');
  return recordTransaction(ctx, ctx.db, {
    accountId: account.id,
    amountMicros: micros,
    ptype: 'operator',
    note: note ?? null,
  });
}

/** Tables a reset keeps: the migrations' bookkeeping, the server's settings (the clock offset) and the operator audit log. */
const keptTables = new Set(['kysely_migration', 'kysely_migration_lock', 'settings', 'operator_audit']);

/**
 * Deletes every account and resource (the catalog and the clock stay). Every table but the
 * kept ones is emptied, so a table a later issue adds is wiped without being listed here.
 * Ids keep counting up, so an id from before the reset never names something new.
 */
export async function resetAll(ctx: Platform): Promise<void> {
  await transaction(ctx, (trx) => emptyTables(trx, ctx.dialect, keptTables));
  await invalidateActors(ctx, null);
}

/** The clock's time (ms) and mode. */
export function clockState(ctx: Platform): { now: number; mode: string } {
  return { now: ctx.clock.now(), mode: ctx.clock.mode };
}
