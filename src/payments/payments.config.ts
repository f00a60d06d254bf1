// Money coming in: the card processor (Stripe or the simulated one) and its keys, the top-up
// bounds, and bank transfers.

import { area, variable } from '../platform/config-area.ts';
import { integer, oneOf, secret, url } from '../platform/config-parsers.ts';

export const paymentsConfig = area({
  title: 'Payments',
  variables: {
    paymentProcessor: variable<'stripe' | 'simulated' | 'off' | null>(
      'PAYMENT_PROCESSOR',
      null,
      oneOf('stripe', 'simulated', 'off'),
      'card top-ups: `stripe` (needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET), `simulated` (a checkout page that pays, fails or cancels on demand; the emulator preset) or `off`; default: `stripe` when STRIPE_SECRET_KEY is set, else off',
    ),
    stripeSecretKey: variable<string | null>(
      'STRIPE_SECRET_KEY',
      null,
      secret(8),
      "Stripe's secret API key (`sk_live_…`, `sk_test_…`); without it and STRIPE_WEBHOOK_SECRET card top-ups are off and say so",
    ),
    stripeWebhookSecret: variable<string | null>(
      'STRIPE_WEBHOOK_SECRET',
      null,
      secret(8),
      'signing secret (`whsec_…`) of the Stripe webhook endpoint that posts to PUBLIC_URL/webhooks/stripe',
    ),
    stripeWebhookToleranceSeconds: variable(
      'STRIPE_WEBHOOK_TOLERANCE_SECONDS',
      300,
      integer(1, 86400),
      "seconds a Stripe webhook's signed timestamp may lie from the system clock (older deliveries are refused as replays)",
    ),
    stripeApiUrl: variable<string | null>(
      'STRIPE_API_URL',
      null,
      url('http:', 'https:'),
      "where the stripe package sends its API calls (its host, port and protocol), for a proxy or a local stand-in; default Stripe's own",
    ),
    simulatedCheckoutExpirySeconds: variable(
      'SIMULATED_CHECKOUT_EXPIRY_SECONDS',
      86_400,
      integer(60, 86_400),
      "seconds the simulated processor's checkout page may be left unpaid before the payment shows `expired` (as a Stripe Checkout Session expires, by default after 24 hours)",
    ),
    paymentMinimum: variable(
      'PAYMENT_MINIMUM',
      5,
      integer(1, 1_000_000),
      'smallest top-up a customer may ask for, in whole USD',
    ),
    paymentMaximum: variable(
      'PAYMENT_MAXIMUM',
      10_000,
      integer(1, 100_000_000),
      'largest top-up a customer may ask for, in whole USD',
    ),
    bankTransferPendingMax: variable(
      'BANK_TRANSFER_PENDING_MAX',
      5,
      integer(1, 1_000),
      'bank transfers one account may have pending (asked for, not yet received nor expired) at once; one more is a 403',
    ),
    bankTransferExpiryDays: variable(
      'BANK_TRANSFER_EXPIRY_DAYS',
      30,
      integer(1, 3_650),
      "days a bank transfer waits for its money; then it is `expired`, leaves the operator's list and can no longer be marked received (money that arrives later is credited by hand)",
    ),
  },
  emulator: { paymentProcessor: 'simulated' },
  integrations: [
    {
      name: 'Stripe',
      together: ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'],
      required: { when: (config) => config.paymentProcessor === 'stripe', because: 'PAYMENT_PROCESSOR=stripe' },
    },
  ],
});
