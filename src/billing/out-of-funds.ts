// Out of funds: what happens when an account's balance reaches zero while it is being billed.
// The policy (the decisions table (docs/decisions.md)): the account is marked out of funds, its running servers are
// powered off, it is mailed once; billable creates already answer 402 (requireFunds). A credit
// that brings the balance above zero lifts the mark; servers stay off until their owner starts them.
// Resources are kept, and keep being billed, until removed.
//
// Nothing here writes to the ledger: charges are derived from invoice items and the clock, so
// however many sweeps run, and however often, no charge is added or lost. The marker row is the
// one thing they race for: a conditional insert decides which sweeper mails.

import type { Tx } from '../db/database.ts';
import { accountFunds } from '../events/resource-events.ts';
import type { Platform } from '../platform/context.ts';
import { isoSeconds } from '../platform/clock.ts';
import { formatMoney } from '../platform/money.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { accountRepository } from '../accounts/account.repository.ts';
import { queueMail } from '../mail/mail.service.ts';
import { letterText } from '../mail/letter.ts';
import { accountFinance } from './ledger.ts';
import { billingRepository } from './billing.repository.ts';
import { powerOffBySweep } from '../compute/machine-intents.ts';
import { transaction } from '../db/transaction.ts';

export interface FundsSweepReport {
  /** Accounts this sweep marked out of funds (and mailed). */
  suspended: number[];
  /** Accounts this sweep found credited again and unmarked. */
  lifted: number[];
  /** Servers this sweep powered off. */
  serversStopped: number;
}

/** One round of the policy; idempotent and safe on several instances at once. */
export async function sweepOutOfFunds(ctx: Platform): Promise<FundsSweepReport> {
  const report: FundsSweepReport = { suspended: [], lifted: [], serversStopped: 0 };

  // A credit lifts the mark at once (recordTransaction); this catches money that arrived otherwise.
  for (const accountId of await billingRepository.markedOutOfFunds(ctx.db)) {
    const { balanceMicros } = await accountFinance(ctx, ctx.db, accountId);
    if (balanceMicros > 0 && (await transaction(ctx, (trx) => liftIfFunded(ctx, trx, accountId))))
      report.lifted.push(accountId);
  }

  // Accounts being billed that are not marked yet: the only ones whose balance can reach zero.
  for (const accountId of await billingRepository.billedUnmarked(ctx.db)) {
    const { balanceMicros } = await accountFinance(ctx, ctx.db, accountId);
    if (balanceMicros > 0) continue;
    const stopped = await transaction(ctx, (trx) => suspend(ctx, trx, accountId));
    if (stopped === null) continue;
    report.suspended.push(accountId);
    report.serversStopped += stopped;
  }

  // Every round, not only at the transition: a server started while out of funds goes off again.
  report.serversStopped += await transaction(ctx, (trx) => stopRunningServers(ctx, trx, null));
  return report;
}

/**
 * Marks the account out of funds if its balance, re-read under the account lock, is still ≤ 0;
 * answers how many servers it powered off, or null when another sweeper (or a credit) got there first.
 */
async function suspend(ctx: Platform, trx: Tx, accountId: number): Promise<number | null> {
  await lockAccount(ctx, trx, accountId);
  const { balanceMicros } = await accountFinance(ctx, trx, accountId);
  if (balanceMicros > 0) return null;
  const now = ctx.clock.now();
  // Only the sweeper whose insert lands goes on to stop servers and mail.
  if (!(await billingRepository.markOutOfFunds(trx, accountId, now))) return null;
  await accountFunds(ctx, trx, accountId, true);
  const stopped = await stopRunningServers(ctx, trx, accountId);
  const account = await accountRepository.addressee(trx, accountId);
  await queueMail(ctx, trx, {
    to: account.email,
    subject: 'Your Nubis balance has run out',
    text: letterText(account.firstname, [
      `The balance of your account reached zero at ${isoSeconds(now)}; it is now ${formatMoney(balanceMicros)} USD.`,
      stopped > 0
        ? `We powered off your ${stopped} running server${stopped === 1 ? '' : 's'}.`
        : 'You had no running servers to power off.',
      '',
      'Your servers, snapshots and addresses are kept and are still billed until you remove them.',
      'New servers, resizes, snapshots, floating IPs and VPCs are refused until the balance is above zero again.',
      'Once you have added credit, start your servers again yourself: we do not restart them.',
    ]),
  });
  return stopped;
}

/**
 * Lifts the out-of-funds mark when the balance is above zero. Call inside a transaction; it
 * takes the account lock first, so it cannot miss a mark that a concurrent sweep is writing.
 */
export async function liftIfFunded(ctx: Platform, trx: Tx, accountId: number): Promise<boolean> {
  await lockAccount(ctx, trx, accountId);
  if (!(await billingRepository.isMarkedOutOfFunds(trx, accountId))) return false;
  const { balanceMicros } = await accountFinance(ctx, trx, accountId);
  if (balanceMicros <= 0) return false;
  await billingRepository.unmarkOutOfFunds(trx, accountId);
  await accountFunds(ctx, trx, accountId, false);
  return true;
}

/**
 * Powers off the running servers of one out-of-funds account (or of all of them with null): each
 * server is stopped at once, whatever transition it was in, like pulling the plug (the engine
 * stops its machine after the commit). Idempotent. On PostgreSQL a server another transaction holds is left
 * for the next round rather than waited for.
 */
async function stopRunningServers(ctx: Platform, trx: Tx, accountId: number | null): Promise<number> {
  let stopped = 0;
  for (const server of await billingRepository.runningServers(ctx.dialect, trx, accountId)) {
    // Read under the lock (or alone, on SQLite) as running: it stops now.
    await powerOffBySweep(ctx, trx, server, 'out of funds');
    stopped++;
  }
  return stopped;
}
