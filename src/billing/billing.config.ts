// Where the seller's details and VAT rates come from (src/billing/billing-settings.ts).

import { area, variable } from '../platform/config-area.ts';
import { text } from '../platform/config-parsers.ts';

export const billingConfig = area({
  title: 'Billing',
  variables: {
    billingFile: variable<string | null>(
      'BILLING_FILE',
      null,
      text,
      "JSON file of the seller's details (on every invoice document, and the bank account for transfers) and VAT rates per country, replacing the shipped `src/billing/billing.json` (its rates are examples, not tax advice)",
    ),
  },
});
