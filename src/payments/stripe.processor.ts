// Stripe through its official package: a Checkout Session per top-up (the customer pays on
// Stripe's page; no card data reaches Nubis), and the webhook's events turned into the payment
// service's calls. The package is pointed at STRIPE_API_URL when set (a proxy, or a test's
// stand-in) through its own host, port and protocol settings.

import type Stripe from 'stripe';
import type { Platform } from '../platform/context.ts';
import { Invalid } from '../platform/errors.ts';
import type { CardProcessor } from './card-processor.ts';
import {
  completePayment,
  type EventOutcome,
  failPayment,
  recordDispute,
  recordDisputeWon,
  recordRefund,
} from './payment-events.ts';

const clients = new WeakMap<Platform['config'], Stripe>();

async function stripeOf(ctx: Platform): Promise<Stripe> {
  let client = clients.get(ctx.config);
  if (!client) {
    // The package (some 200 modules) loads with the first call to Stripe, not at every start:
    // most servers, and every emulator, never make one.
    const { default: Stripe } = await import('stripe');
    const api = ctx.config.stripeApiUrl ? new URL(ctx.config.stripeApiUrl) : null;
    client = new Stripe(ctx.config.stripeSecretKey ?? '', {
      maxNetworkRetries: 2,
      timeout: 20_000,
      ...(api
        ? {
            host: api.hostname,
            port: api.port || (api.protocol === 'https:' ? 443 : 80),
            protocol: api.protocol === 'https:' ? 'https' : 'http',
          }
        : {}),
    });
    clients.set(ctx.config, client);
  }
  return client;
}

export const stripeProcessor: CardProcessor = {
  name: 'stripe',
  async startCheckout(ctx, checkout) {
    const stripe = await stripeOf(ctx);
    const session = await stripe.checkout.sessions.create(
      {
        mode: 'payment',
        customer_email: checkout.email,
        client_reference_id: String(checkout.transactionId),
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: 'usd',
              unit_amount: Math.round(checkout.grossMicros / 10_000),
              product_data: { name: 'Account credit (VAT included)' },
            },
          },
        ],
        metadata: { nubis_transaction: String(checkout.transactionId) },
        success_url: checkout.successUrl,
        cancel_url: checkout.cancelUrl,
      },
      // One session per payment, even when the call is retried.
      { idempotencyKey: `nubis-payment-${checkout.transactionId}` },
    );
    if (!session.url) throw new Error(`Stripe answered checkout session ${session.id} without a url`);
    return { ref: session.id, url: session.url };
  },
};

const centsToMicros = (cents: number | null | undefined) => Math.round(Number(cents ?? 0)) * 10_000;
const idOf = (value: string | { id: string } | null | undefined) =>
  typeof value === 'string' ? value : (value?.id ?? null);

/** The processor's fee for a paid session, when Stripe reports one (0 when it cannot be read). */
async function feeOf(ctx: Platform, paymentIntent: string | null): Promise<number> {
  if (!paymentIntent) return 0;
  try {
    const stripe = await stripeOf(ctx);
    const intent = await stripe.paymentIntents.retrieve(paymentIntent, {
      expand: ['latest_charge.balance_transaction'],
    });
    const charge = intent.latest_charge;
    const balance = typeof charge === 'object' && charge ? charge.balance_transaction : null;
    return typeof balance === 'object' && balance ? centsToMicros(balance.fee) : 0;
  } catch (error) {
    ctx.log.warn({ paymentIntent, err: (error as Error).message }, 'Stripe fee not readable; recorded as 0');
    return 0;
  }
}

/**
 * Verifies a webhook delivery with the package (signature and tolerance window) and acts on it.
 * A bad signature is a 400 naming the header; an event Nubis does not act on is acknowledged.
 */
export async function handleStripeWebhook(
  ctx: Platform,
  payload: string,
  signature: string | undefined,
): Promise<{ received: true; outcome: EventOutcome | 'ignored' }> {
  const secret = ctx.config.stripeWebhookSecret;
  if (!secret)
    throw new Invalid('stripe-signature', 'Stripe webhooks are off on this server (no STRIPE_WEBHOOK_SECRET)');
  const stripe = await stripeOf(ctx);
  let event: Stripe.Event;
  try {
    event = await stripe.webhooks.constructEventAsync(
      payload,
      signature ?? '',
      secret,
      ctx.config.stripeWebhookToleranceSeconds,
    );
  } catch (error) {
    throw new Invalid('stripe-signature', `bad signature: ${(error as Error).message}`);
  }
  const meta = { processor: 'stripe', id: event.id, type: event.type };
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const session = event.data.object;
      // A delayed method (a bank debit) completes the session unpaid; its async event settles it.
      if (session.payment_status !== 'paid') return { received: true, outcome: 'ignored' };
      const paymentIntent = idOf(session.payment_intent);
      const fee = await feeOf(ctx, paymentIntent);
      const outcome = await completePayment(
        ctx,
        { ptype: 'stripe', processorRef: session.id },
        { paymentRef: paymentIntent, feeMicros: fee },
        meta,
      );
      return { received: true, outcome };
    }
    case 'checkout.session.async_payment_failed':
    case 'checkout.session.expired':
      return {
        received: true,
        outcome: await failPayment(
          ctx,
          { ptype: 'stripe', processorRef: event.data.object.id },
          meta,
          event.type === 'checkout.session.expired' ? 'expired' : 'failed',
        ),
      };
    case 'charge.refunded': {
      const charge = event.data.object;
      const paymentIntent = idOf(charge.payment_intent);
      if (!paymentIntent) return { received: true, outcome: 'ignored' };
      const outcome = await recordRefund(
        ctx,
        { ptype: 'stripe', paymentRef: paymentIntent },
        centsToMicros(charge.amount_refunded),
        meta,
      );
      return { received: true, outcome };
    }
    case 'charge.dispute.created':
    case 'charge.dispute.closed': {
      const dispute = event.data.object;
      const paymentIntent = idOf(dispute.payment_intent);
      if (!paymentIntent) return { received: true, outcome: 'ignored' };
      const ref = { ptype: 'stripe', paymentRef: paymentIntent };
      if (event.type === 'charge.dispute.created')
        return { received: true, outcome: await recordDispute(ctx, ref, centsToMicros(dispute.amount), meta) };
      if (dispute.status === 'won') return { received: true, outcome: await recordDisputeWon(ctx, ref, meta) };
      return { received: true, outcome: 'ignored' };
    }
    default:
      return { received: true, outcome: 'ignored' };
  }
}
