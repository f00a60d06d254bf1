// The emulator's card processor: a checkout page served by Nubis itself (/simulated-processor)
// whose buttons pay, fail or cancel the payment on demand, so client developers see realistic
// pending, completed and failed transactions without a processor account. Paying goes through the
// same completion as a Stripe webhook, with an event id of its own, so a double click credits once.

import { randomUUID } from 'node:crypto';
import type { Platform } from '../platform/context.ts';
import { NotFound } from '../platform/errors.ts';
import { toCents } from '../platform/money.ts';
import { taxOf } from '../billing/billing-settings.ts';
import type { CardProcessor } from './card-processor.ts';
import { completePayment, failPayment } from './payment-events.ts';

export const simulatedProcessor: CardProcessor = {
  name: 'simulated',
  async startCheckout(_ctx, checkout) {
    const ref = `sim_${randomUUID()}`;
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
  /** What the customer is asked to pay (VAT included), USD. */
  amount: number;
  pstatus: string;
}

export async function simulatedCheckout(ctx: Platform, ref: string): Promise<SimulatedCheckout> {
  const row = await ctx.db
    .selectFrom('transactions')
    .selectAll()
    .where('ptype', '=', 'simulated')
    .where('processor_ref', '=', ref)
    .executeTakeFirst();
  if (!row) throw new NotFound('checkout');
  return {
    ref,
    transactionId: row.id,
    amount: toCents(row.amount_micros + taxOf(row.amount_micros, row.taxrate_bp)),
    pstatus: row.pstatus,
  };
}

export type SimulatedOutcome = 'pay' | 'fail' | 'cancel';

/** The customer's choice on the simulated page: pay (completes and credits once), fail or cancel (the payment fails). */
export async function decideSimulatedCheckout(ctx: Platform, ref: string, outcome: SimulatedOutcome): Promise<void> {
  await simulatedCheckout(ctx, ref);
  const event = { processor: 'simulated', id: `${ref}:${outcome}`, type: `checkout.${outcome}` };
  const payment = { ptype: 'simulated', processorRef: ref };
  if (outcome === 'pay') await completePayment(ctx, payment, { paymentRef: ref }, event);
  else await failPayment(ctx, payment, event);
}
