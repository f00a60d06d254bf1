// Payments: money a customer sends in, by card through a processor (Stripe, or the emulator's
// simulated one) or by bank transfer. A payment is a transaction that starts pending and is
// completed exactly once — by the processor's event or the operator's word — which credits the
// balance; refunds and disputes are transactions of their own that adjust it. Nubis never sees
// card data: the processor's own page takes it.

import type { Actor, Platform } from '../platform/context.ts';
import { Conflict, Invalid, LimitReached, NotFound, Unavailable } from '../platform/errors.ts';
import { parseMoney } from '../platform/money.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { requireActivated, requireNotBlocked } from '../accounts/permissions.ts';
import { accountRepository } from '../accounts/account.repository.ts';
import { billingSettings, taxOf, vatRateBp } from '../billing/billing-settings.ts';
import { rowToTransaction, type Transaction } from '../billing/transaction.service.ts';
import { cardProcessorOf } from './processors.ts';
import { rowToPayment, settle } from './payment-events.ts';
import { transaction } from '../db/transaction.ts';
import { paymentRepository } from './payment.repository.ts';
import { isHttpUrl } from '../platform/http-url.ts';
import { onSite, siteUrl } from './site-url.ts';
import type { CardProcessor } from './card-processor.ts';

export interface PaymentOptions {
  /** The card processor, or why card payments are off. */
  card: { processor: string } | { off: string };
  bankTransfer: { holder: string; iban: string; bic: string | null };
  /** Bounds of a top-up, whole USD (PAYMENT_MINIMUM, PAYMENT_MAXIMUM). */
  minimumUsd: number;
  maximumUsd: number;
  /** VAT in basis points that a payment from this account carries on top of the amount. */
  taxrateBp: number;
}

export async function paymentOptions(ctx: Platform, actor: Actor): Promise<PaymentOptions> {
  const account = await accountRepository.findById(ctx.db, actor.accountId);
  const card = cardProcessorOf(ctx);
  const bank = billingSettings(ctx).seller.bank;
  return {
    card: 'off' in card ? { off: card.off } : { processor: card.name },
    bankTransfer: { holder: bank.holder, iban: bank.iban, bic: bank.bic ?? null },
    minimumUsd: ctx.config.paymentMinimum,
    maximumUsd: ctx.config.paymentMaximum,
    taxrateBp: vatRateBp(ctx, account?.country ?? ''),
  };
}

/** The net amount of a top-up (what the balance gains), in micro-dollars; 400 naming `amount` when out of bounds. */
function topUpAmount(ctx: Platform, amount: string | number): number {
  let micros: number;
  try {
    micros = parseMoney(amount);
  } catch {
    throw new Invalid('amount', 'bad value: an amount in USD with at most 2 decimals');
  }
  if (micros % 10_000 !== 0) throw new Invalid('amount', 'bad value: at most 2 decimals (whole cents)');
  const { paymentMinimum: min, paymentMaximum: max } = ctx.config;
  if (micros < min * 1_000_000 || micros > max * 1_000_000)
    throw new Invalid('amount', `out of range: a top-up is from ${min} to ${max} USD`);
  return micros;
}

/** The return address with the payment's id and outcome added (in the hash part when it has one: the console's routes). */
function withOutcome(returnUrl: string, transactionId: number, outcome: 'paid' | 'cancelled'): string {
  const hash = returnUrl.indexOf('#');
  const params = `payment=${transactionId}&outcome=${outcome}`;
  if (hash >= 0) {
    const fragment = returnUrl.slice(hash);
    return `${returnUrl.slice(0, hash)}${fragment}${fragment.includes('?') ? '&' : '?'}${params}`;
  }
  const url = new URL(returnUrl);
  url.searchParams.set('payment', String(transactionId));
  url.searchParams.set('outcome', outcome);
  return url.toString();
}

function returnUrlOf(ctx: Platform, processor: CardProcessor, given: string | undefined, origin: string | undefined) {
  const base = siteUrl(ctx, origin);
  if (given === undefined || given.trim() === '') return `${base}/#/billing`;
  if (!isHttpUrl(given)) throw new Invalid('return_url', 'bad value: an absolute http(s) URL');
  if (processor.returnsOnSiteOnly && !onSite(given, base))
    throw new Invalid('return_url', `bad value: the ${processor.name} processor returns only to this server (${base})`);
  return given;
}

async function payer(ctx: Platform, actor: Actor) {
  const account = await accountRepository.findById(ctx.db, actor.accountId);
  if (!account) throw new NotFound('account');
  return account;
}

/** Starts a card top-up: a pending transaction and the processor's checkout page to send the customer to. */
export async function startCheckout(
  ctx: Platform,
  actor: Actor,
  input: { amount: string | number; return_url?: string },
  /** The address the request reached (scheme, host, port), for a processor page Nubis serves itself. */
  origin?: string,
): Promise<{ transaction: Transaction; checkoutUrl: string }> {
  requireNotBlocked(actor);
  requireActivated(actor);
  const processor = cardProcessorOf(ctx);
  if ('off' in processor) throw new Conflict(processor.off);
  const net = topUpAmount(ctx, input.amount);
  const returnUrl = returnUrlOf(ctx, processor, input.return_url, origin);
  const account = await payer(ctx, actor);
  const rate = vatRateBp(ctx, account.country);
  const now = ctx.clock.now();
  // Its own transaction: the payment and the account's count of transactions land together
  // (the account row first: the lock order).
  const row = await transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, account.id);
    return paymentRepository.insertPayment(trx, {
      accountId: account.id,
      ptype: processor.name,
      amountMicros: net,
      taxrateBp: rate,
      createdAt: now,
    });
  });
  let session: { ref: string; url: string };
  try {
    // The processor call is made once the pending payment is recorded, with the payment's id as
    // its idempotency key; a failure leaves the payment failed and nothing charged.
    session = await processor.startCheckout(ctx, {
      transactionId: row.id,
      grossMicros: net + taxOf(net, rate),
      email: account.email,
      siteUrl: siteUrl(ctx, origin),
      successUrl: withOutcome(returnUrl, row.id, 'paid'),
      cancelUrl: withOutcome(returnUrl, row.id, 'cancelled'),
    });
  } catch (error) {
    await paymentRepository.endPending(ctx.db, row.id, { pstatus: 'failed' }, ctx.clock.now());
    ctx.log.warn({ transactionId: row.id, err: (error as Error).message }, 'payment processor refused a checkout');
    throw new Unavailable('the payment processor did not start the payment; nothing was charged: retry');
  }
  const updated = await paymentRepository.setProcessorRef(ctx.db, row.id, session.ref);
  return { transaction: rowToTransaction(updated), checkoutUrl: session.url };
}

export interface BankTransfer {
  transaction: Transaction;
  /** What to put on the transfer. */
  instructions: {
    holder: string;
    iban: string;
    bic: string | null;
    reference: string;
    /** What to transfer, VAT included. */
    amountMicros: number;
    currency: string;
  };
}

/**
 * A pending bank transfer: a reference to put on the transfer; the operator marks it received.
 * An account waits on at most BANK_TRANSFER_PENDING_MAX at once (counted under its lock, so
 * concurrent asks cannot pass the cap together); its expired ones are marked first and do not count.
 */
export async function requestBankTransfer(
  ctx: Platform,
  actor: Actor,
  input: { amount: string | number },
): Promise<BankTransfer> {
  requireNotBlocked(actor);
  requireActivated(actor);
  const net = topUpAmount(ctx, input.amount);
  const account = await payer(ctx, actor);
  const rate = vatRateBp(ctx, account.country);
  const cap = ctx.config.bankTransferPendingMax;
  const row = await transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, account.id);
    const now = ctx.clock.now();
    await paymentRepository.expireTransfers(trx, expiredBefore(ctx, now), now, account.id);
    if ((await paymentRepository.pendingTransferCount(trx, account.id)) >= cap)
      throw new LimitReached(
        'bank transfers',
        cap,
        `the account has at most ${cap} pending bank transfers: wait until one is received (or expires after ${ctx.config.bankTransferExpiryDays} days)`,
      );
    // 40 random bits in base 32 (0-9, A-V): short enough to type on a transfer; the index keeps it unique.
    const reference = `NUBIS-${ctx.random.bytes(5).readUIntBE(0, 5).toString(32).toUpperCase().padStart(8, '0')}`;
    return paymentRepository.insertPayment(trx, {
      accountId: account.id,
      ptype: 'bank',
      amountMicros: net,
      taxrateBp: rate,
      reference,
      createdAt: now,
    });
  });
  const bank = billingSettings(ctx).seller.bank;
  const transfer = rowToTransaction(row);
  return {
    transaction: transfer,
    instructions: {
      holder: bank.holder,
      iban: bank.iban,
      bic: bank.bic ?? null,
      reference: transfer.reference!,
      amountMicros: net + taxOf(net, rate),
      currency: 'USD',
    },
  };
}

/** Transfers asked for before this moment have waited too long (BANK_TRANSFER_EXPIRY_DAYS). */
function expiredBefore(ctx: Platform, now: number): number {
  return now - ctx.config.bankTransferExpiryDays * 86_400_000;
}

/** Marks every pending bank transfer past its expiry expired (a sweep; reads also do it first). */
export async function expirePendingTransfers(ctx: Platform): Promise<number> {
  const now = ctx.clock.now();
  return paymentRepository.expireTransfers(ctx.db, expiredBefore(ctx, now), now);
}

/** The operator's word that a bank transfer arrived: completes it and credits the balance, once. */
export async function markTransferReceived(ctx: Platform, transactionId: number): Promise<Transaction> {
  const stored = await paymentRepository.byId(ctx.db, transactionId);
  if (!stored) throw new NotFound('transaction');
  const found = rowToTransaction(stored);
  if (found.ptype !== 'bank')
    throw new Conflict(`transaction ${transactionId} is not a bank transfer (ptype ${found.ptype})`);
  return transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, found.accountId);
    const now = ctx.clock.now();
    await paymentRepository.expireTransfers(trx, expiredBefore(ctx, now), now, found.accountId);
    const row = await paymentRepository.byId(trx, transactionId);
    if (!row) throw new NotFound('transaction');
    const transfer = rowToPayment(row);
    if (transfer.pstatus === 'expired')
      throw new Conflict(
        `bank transfer ${transactionId} expired (not received within ${ctx.config.bankTransferExpiryDays} days): credit late money to the account by hand`,
      );
    if (!(await settle(ctx, trx, transfer, {})))
      throw new Conflict(`bank transfer ${transactionId} is ${transfer.pstatus}, not pending`);
    return rowToTransaction((await paymentRepository.byId(trx, transactionId))!);
  });
}

/** At most this many transfers on one page of the operator's list. */
export const transferPageMax = 1000;

/**
 * One page of the pending bank transfers of every account, newest first (keyset: ids below
 * `before`), so a new transfer is always on the first page; `nextBefore` continues, null at the end.
 */
export async function pendingTransfers(
  ctx: Platform,
  page: { before?: number; limit?: number },
): Promise<{ transfers: Transaction[]; nextBefore: number | null }> {
  await expirePendingTransfers(ctx);
  const limit = Math.min(page.limit ?? 100, transferPageMax);
  const rows = await paymentRepository.pendingTransfers(ctx.db, { before: page.before, limit: limit + 1 });
  const shown = rows.slice(0, limit);
  return {
    transfers: shown.map(rowToTransaction),
    nextBefore: rows.length > limit ? shown[shown.length - 1]!.id : null,
  };
}
