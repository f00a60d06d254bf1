// Out of funds: what happens when an account's balance reaches zero while it is being billed.
// The policy (the decisions table (docs/decisions.md)): the account is marked out of funds, its running servers are
// powered off, it is mailed once; billable creates already answer 402 (requireFunds). A credit
// that brings the balance above zero lifts the mark; servers stay off until their owner starts them.
// Resources are kept, and keep being billed, until removed.
//
// Nothing here writes to the ledger: charges are derived from invoice items and the clock, so
// however many sweeps run, and however often, no charge is added or lost. The marker row is the
// one thing they race for: a conditional insert decides which sweeper mails. The mark itself is
// billing's (billing/out-of-funds.ts: a credit lifts it); the servers powered off are this sweep's.

import type { Tx } from '../db/database.ts';
import { accountFunds } from '../events/resource-events.ts';
import type { Platform } from '../platform/context.ts';
import { isoSeconds } from '../platform/clock.ts';
import { formatMoney } from '../platform/money.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { accountRepository } from '../accounts/account.repository.ts';
import { queueMail } from '../mail/mail.service.ts';
import { letterText } from '../mail/letter.ts';
import { accountFinance, financeOfItems, zeroBalanceAt } from '../billing/ledger.ts';
import { billingRepository } from '../billing/billing.repository.ts';
import { liftIfFunded } from '../billing/out-of-funds.ts';
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

/**
 * How far ahead the sweep trusts its own forecast: an account whose balance stays above zero
 * for longer is looked at again after this anyway, the safety net for a change that did not
 * mark it due.
 */
const forecastMs = 86_400_000;
/** Pages of due accounts one round reads at most; the rest wait for the next round. */
const maxPages = 200;

/**
 * One round of the policy; idempotent and safe on several instances at once. It reads only the
 * accounts that are due (accounts.funds_due_at ≤ now): every write that changes a ledger marks
 * its account due (billing.repository.ts markFundsDue, addSettled), and each look sets when to
 * look again — the instant the balance reaches zero at the present burn — so a round with
 * nothing due costs the same whatever the number of accounts and servers.
 */
export async function sweepOutOfFunds(ctx: Platform, pageSize = 500): Promise<FundsSweepReport> {
  const report: FundsSweepReport = { suspended: [], lifted: [], serversStopped: 0 };
  const now = ctx.clock.now();
  // Each account looked at is due later (or never) afterwards, so the next page holds others; the
  // bound keeps a round finite while other instances keep marking accounts due.
  for (let page = 0; page < maxPages; page++) {
    const due = await billingRepository.fundsDue(ctx.db, now, pageSize);
    for (const accountId of due) {
      const outcome = await transaction(ctx, (trx) => checkFunds(ctx, trx, accountId, now));
      if (outcome === 'lifted') report.lifted.push(accountId);
      else if (outcome !== null) {
        report.suspended.push(accountId);
        report.serversStopped += outcome.stopped;
      }
    }
    if (due.length < pageSize) break;
  }
  // Every round, not only at the transition: a server started while out of funds goes off again.
  report.serversStopped += await transaction(ctx, (trx) => stopRunningServers(ctx, trx, null));
  return report;
}

/**
 * Looks at one due account under its lock: lifts the mark of one credited again, marks one whose
 * balance reached zero (answering how many servers it powered off), and sets when to look next.
 */
async function checkFunds(
  ctx: Platform,
  trx: Tx,
  accountId: number,
  now: number,
): Promise<'lifted' | { stopped: number } | null> {
  await lockAccount(ctx, trx, accountId);
  const { settled, items } = await billingRepository.ledger(trx, accountId);
  const { balanceMicros } = financeOfItems(settled, items, now);
  let lifted = false;
  if (await billingRepository.isMarkedOutOfFunds(trx, accountId)) {
    // A credit lifts the mark at once (recordTransaction); this catches money that arrived otherwise.
    if (balanceMicros <= 0 || !(await liftIfFunded(ctx, trx, accountId))) {
      // Marked, and it stays so until its ledger changes (a credit marks it due).
      await billingRepository.setFundsDue(trx, accountId, null);
      return null;
    }
    lifted = true;
  } else if (items.length > 0 && balanceMicros <= 0) {
    const stopped = await suspend(ctx, trx, accountId);
    await billingRepository.setFundsDue(trx, accountId, null);
    return stopped === null ? null : { stopped };
  }
  // Nothing billed: nothing can bring the balance down until an item opens (which marks it due).
  const next = items.length === 0 ? null : (zeroBalanceAt(settled, items, now, now + forecastMs) ?? now + forecastMs);
  await billingRepository.setFundsDue(trx, accountId, next);
  return lifted ? 'lifted' : null;
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
