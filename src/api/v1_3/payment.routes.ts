// v1.3 payments (extension): how the account can pay, a card top-up through the processor's
// checkout page, and a bank transfer with its reference.

import { type Static, Type } from 'typebox';
import type { Platform } from '../../platform/context.ts';
import type { ApiApp } from '../../http/api-app.ts';
import { actorOf } from '../../http/api-app.ts';
import {
  type PaymentOptions as DomainPaymentOptions,
  paymentOptions,
  requestBankTransfer,
  startCheckout,
} from '../../payments/payment.service.ts';
import { authErrors, responses } from './schemas.ts';
import { Transaction, transactionObject } from './billing.routes.ts';
import { MAX_BALANCE_MICROS, MICROS_PER_DOLLAR, toCents } from '../../platform/money.ts';

const tags = ['v1.3 billing'];
// Bounded like every number the API takes: no balance holds more than a billion USD (platform/money.ts).
const Amount = Type.Union(
  [Type.Number({ minimum: 0, maximum: MAX_BALANCE_MICROS / MICROS_PER_DOLLAR }), Type.String({ maxLength: 32 })],
  {
    description:
      "USD the balance gains, whole cents, within the server's bounds (payment/options); VAT is added on top",
    examples: [25],
  },
);

const PaymentOptions = Type.Object(
  {
    card: Type.Object({
      available: Type.Boolean(),
      processor: Type.Union([Type.String(), Type.Null()], { examples: ['stripe', 'simulated'] }),
      reason: Type.Union([Type.String(), Type.Null()], { description: 'why card payments are off' }),
    }),
    bank_transfer: Type.Object({
      available: Type.Boolean(),
      holder: Type.String(),
      iban: Type.String(),
      bic: Type.Union([Type.String(), Type.Null()]),
    }),
    minimum: Type.Number({ description: 'smallest top-up, USD' }),
    maximum: Type.Number({ description: 'largest top-up, USD' }),
    taxrate: Type.Number({ description: "VAT in percent added to a payment from this account's country" }),
  },
  { $id: 'PaymentOptions', description: 'how the account can pay (extension)' },
);

function paymentOptionsObject(options: DomainPaymentOptions): Static<typeof PaymentOptions> {
  const { card, bankTransfer } = options;
  return {
    card:
      'off' in card
        ? { available: false, processor: null, reason: card.off }
        : { available: true, processor: card.processor, reason: null },
    bank_transfer: { available: true, ...bankTransfer },
    minimum: options.minimumUsd,
    maximum: options.maximumUsd,
    taxrate: options.taxrateBp / 100,
  };
}

export function paymentRoutes(app: ApiApp, ctx: Platform): void {
  app.route({
    method: 'GET',
    url: '/payment/options',
    config: { access: 'account' },
    schema: {
      operationId: 'getPaymentOptions',
      summary: 'Show how the account can pay',
      description:
        'Extension. Whether card payments are on (and why not), the bank account for transfers, the bounds of a top-up and the VAT rate a payment carries.',
      tags,
      response: responses({ 200: PaymentOptions }, [401, 429]),
    },
    handler: async (request) => paymentOptionsObject(await paymentOptions(ctx, actorOf(request))),
  });

  app.route({
    method: 'POST',
    url: '/payment/checkout',
    config: { access: 'account' },
    schema: {
      operationId: 'createCheckout',
      summary: 'Start a card top-up',
      description:
        "Extension. Records a pending transaction and answers the processor's checkout page (`checkout_url`) to send the customer to; the processor's confirmation completes it and credits the balance once. The customer comes back to `return_url` with `payment=<id>&outcome=paid|cancelled` added. 409 when card payments are off (the reason says so); 503 when the processor does not answer (nothing is charged).",
      tags,
      body: Type.Object({
        amount: Amount,
        return_url: Type.Optional(
          Type.String({ maxLength: 2000, description: "absolute http(s) URL; default the console's Billing page" }),
        ),
      }),
      response: responses({ 201: Type.Object({ transaction: Transaction, checkout_url: Type.String() }) }, [
        ...authErrors,
        409,
      ]),
    },
    handler: async (request, reply) => {
      reply.code(201);
      const started = await startCheckout(ctx, actorOf(request), request.body, `${request.protocol}://${request.host}`);
      return { transaction: transactionObject(started.transaction), checkout_url: started.checkoutUrl };
    },
  });

  app.route({
    method: 'POST',
    url: '/payment/bank_transfer',
    config: { access: 'account' },
    schema: {
      operationId: 'createBankTransfer',
      summary: 'Ask to pay by bank transfer',
      description:
        'Extension. Records a pending transaction with a reference and answers what to transfer where; the operator marks it received, which credits the balance.',
      tags,
      body: Type.Object({ amount: Amount }),
      response: responses(
        {
          201: Type.Object({
            transaction: Transaction,
            instructions: Type.Object({
              holder: Type.String(),
              iban: Type.String(),
              bic: Type.Union([Type.String(), Type.Null()]),
              reference: Type.String({ description: 'put it on the transfer' }),
              amount: Type.Number({ description: 'USD to transfer, VAT included' }),
              currency: Type.String(),
            }),
          }),
        },
        authErrors,
      ),
    },
    handler: async (request, reply) => {
      reply.code(201);
      const { transaction, instructions } = await requestBankTransfer(ctx, actorOf(request), request.body);
      const { amountMicros, ...rest } = instructions;
      return { transaction: transactionObject(transaction), instructions: { ...rest, amount: toCents(amountMicros) } };
    },
  });
}
