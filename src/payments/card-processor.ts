// A card processor as the payment service sees it: it sends the customer to its own checkout page
// and later reports the outcome (Stripe by webhook, the simulated processor by its page's buttons).

import type { Platform } from '../platform/context.ts';

export interface Checkout {
  transactionId: number;
  /** What the customer pays: the amount plus VAT. */
  grossMicros: number;
  email: string;
  /** Where this Nubis is reached (PUBLIC_URL, or the address the request came to). */
  siteUrl: string;
  successUrl: string;
  cancelUrl: string;
}

export interface CardProcessor {
  /** The transactions' `ptype`. */
  name: 'stripe' | 'simulated';
  /** The customer comes back only to this server (the simulated page must never redirect elsewhere). */
  returnsOnSiteOnly?: boolean;
  /** Creates the processor's checkout; answers its id and the page to send the customer to. */
  startCheckout(ctx: Platform, checkout: Checkout): Promise<{ ref: string; url: string }>;
}
