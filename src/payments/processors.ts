// Card processors behind one interface, chosen in one place (PAYMENT_PROCESSOR): Stripe through
// its official package, or the emulator's simulated processor. Each sends the customer to its own
// checkout page and later reports the outcome (Stripe by webhook, the simulated one by its page).

import type { Platform } from '../platform/context.ts';
import { simulatedProcessor } from './simulated.processor.ts';
import { stripeProcessor } from './stripe.processor.ts';
import type { CardProcessor } from './card-processor.ts';

/** The configured processor, or why card payments are off. */
export function cardProcessorOf(ctx: Platform): CardProcessor | { off: string } {
  const { paymentProcessor, stripeSecretKey, stripeWebhookSecret } = ctx.config;
  const chosen = paymentProcessor ?? (stripeSecretKey ? 'stripe' : 'off');
  if (chosen === 'simulated') return simulatedProcessor;
  if (chosen === 'off')
    return {
      off: 'card payments are off on this server: the operator sets STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET (or PAYMENT_PROCESSOR=simulated in an emulator); a bank transfer works meanwhile',
    };
  if (!stripeSecretKey || !stripeWebhookSecret)
    return {
      off: 'card payments are off on this server: PAYMENT_PROCESSOR=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET; a bank transfer works meanwhile',
    };
  return stripeProcessor;
}
