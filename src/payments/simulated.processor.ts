// The emulator's card processor: a checkout page served by Nubis itself (/simulated-processor)
// whose buttons pay, fail or cancel the payment on demand, so client developers see realistic
// pending, completed and failed transactions without a processor account. Paying goes through the
// same completion as a Stripe webhook, with an event id of its own, so a double click credits once.

import type { Platform } from '../platform/context.ts';
import { Invalid, NotFound } from '../platform/errors.ts';
import { taxOf } from '../billing/billing-settings.ts';
import { rowToTransaction } from '../billing/transaction.service.ts';
import type { CardProcessor } from './card-processor.ts';
import { completePayment, failPayment } from './payment-events.ts';
import { firedFault } from '../faults/fault.service.ts';
import { paymentRepository } from './payment.repository.ts';
import { onSite, siteUrl } from './site-url.ts';

export const simulatedProcessor: CardProcessor = {
  name: 'simulated',
  // Its page is open to anyone holding the link: sent elsewhere, it would be an open redirect.
  returnsOnSiteOnly: true,
  async startCheckout(ctx, checkout) {
    // From the one random source, so a seeded emulator (NUBIS_SEED) hands out the same refs each run.
    const ref = `sim_${ctx.random.uuid()}`;
    // The return addresses ride in the page's own URL, so any instance can serve the page.
    const url = new URL(`${checkout.siteUrl}/simulated-processor/checkout/${ref}`);
    url.searchParams.set('success_url', checkout.successUrl);
    url.searchParams.set('cancel_url', checkout.cancelUrl);
    return { ref, url: url.toString() };
  },
};

export interface SimulatedCheckout {
  ref: string;
  transactionId: number;
  accountId: number;
  /** What the customer is asked to pay, VAT included. */
  grossMicros: number;
  pstatus: string;
}

export async function simulatedCheckout(ctx: Platform, ref: string): Promise<SimulatedCheckout> {
  const row = await paymentRepository.simulatedCheckout(ctx.db, ref);
  if (!row) throw new NotFound('checkout');
  const payment = rowToTransaction(row);
  return {
    ref,
    transactionId: payment.id,
    accountId: payment.accountId,
    grossMicros: payment.amountMicros + taxOf(payment.amountMicros, payment.taxrateBp),
    pstatus: payment.pstatus,
  };
}

export type SimulatedOutcome = 'pay' | 'fail' | 'cancel';

/** Where the page sends the customer back, as its link (anyone can edit) carries it. */
export interface ReturnAddresses {
  success_url?: string;
  cancel_url?: string;
}

/**
 * The page's return addresses, each checked to be on this server (checkout creation makes only
 * such; a link edited to point elsewhere is refused, 400 naming the field, so the page never
 * redirects off the instance). `origin` is the address the page was asked at.
 */
export function returnAddresses(ctx: Platform, given: ReturnAddresses, origin: string): ReturnAddresses {
  const site = siteUrl(ctx, origin);
  for (const field of ['success_url', 'cancel_url'] as const) {
    const url = given[field];
    if (url && !onSite(url, site))
      throw new Invalid(field, `bad value: the simulated processor returns only to ${site}`);
  }
  return { success_url: given.success_url || undefined, cancel_url: given.cancel_url || undefined };
}

/** The fault rules' name for a click on Pay (a rule with a status matching it declines the payment). */
export const payOperation = 'payCheckout';

/**
 * The customer's choice on the simulated page: pay (completes and credits once), fail or cancel
 * (the payment fails). A fault rule that matches the click on Pay (operation `payCheckout`, or its
 * path) and answers a status declines the payment instead. Answers what became of it.
 */
export async function decideSimulatedCheckout(
  ctx: Platform,
  ref: string,
  outcome: SimulatedOutcome,
): Promise<SimulatedOutcome> {
  const checkout = await simulatedCheckout(ctx, ref);
  let decided = outcome;
  if (outcome === 'pay') {
    const fault = await firedFault(ctx, {
      method: 'POST',
      path: `/simulated-processor/checkout/${ref}/pay`,
      route: '/simulated-processor/checkout/:ref/:outcome',
      operationId: payOperation,
      accountId: checkout.accountId,
      api: 'v1.3',
    });
    if (fault?.status) decided = 'fail';
  }
  const event = { processor: 'simulated', id: `${ref}:${decided}`, type: `checkout.${decided}` };
  const payment = { ptype: 'simulated', processorRef: ref };
  if (decided === 'pay') await completePayment(ctx, payment, { paymentRef: ref }, event);
  else await failPayment(ctx, payment, event);
  return decided;
}

/**
 * Ends the simulated checkouts left unpaid longer than SIMULATED_CHECKOUT_EXPIRY_SECONDS, as Stripe
 * expires a Checkout Session (24 h by default) and says so with `checkout.session.expired`: the
 * payment shows `expired`, never pending forever. A sweep; safe on every instance at once.
 */
export async function expireSimulatedCheckouts(ctx: Platform, batch = 500): Promise<number> {
  const before = ctx.clock.now() - ctx.config.simulatedCheckoutExpirySeconds * 1000;
  const abandoned = await paymentRepository.simulatedCheckoutsOpenedBefore(ctx.db, before, batch);
  let expired = 0;
  for (const ref of abandoned) {
    const event = { processor: 'simulated', id: `${ref}:expired`, type: 'checkout.expired' };
    if ((await failPayment(ctx, { ptype: 'simulated', processorRef: ref }, event, 'expired')) === 'applied') expired++;
  }
  return expired;
}
