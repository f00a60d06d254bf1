// What payment processors reach outside the APIs: Stripe's webhook (/webhooks/stripe, the raw
// body kept for its signature), and the simulated processor's checkout page
// (/simulated-processor/checkout/:ref), whose buttons pay, fail or cancel on demand.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Platform } from '../../platform/context.ts';
import { NotFound } from '../../platform/errors.ts';
import { formatMoney } from '../../platform/money.ts';
import { toProblem } from '../../http/error-mapping.ts';
import { logFailure } from '../../http/failure-log.ts';
import { addFormBodies } from '../../http/form-bodies.ts';
import { handleStripeWebhook } from '../../payments/stripe.processor.ts';
import { cardProcessorOf } from '../../payments/processors.ts';
import {
  decideSimulatedCheckout,
  type ReturnAddresses,
  returnAddresses,
  type SimulatedOutcome,
  simulatedCheckout,
} from '../../payments/simulated.processor.ts';

const outcomes: SimulatedOutcome[] = ['pay', 'fail', 'cancel'];

function problem(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const found = toProblem(error);
  logFailure(request, error, found);
  return reply.code(found.status).send({ error: found.status >= 500 ? 'internal error' : found.reason });
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Simulated payment</title><style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}
form{display:inline}button{font:inherit;padding:.5rem 1rem;margin:.25rem}</style></head><body>${body}</body></html>`;
}

export function processorRoutes(ctx: Platform) {
  return async function routes(app: FastifyInstance): Promise<void> {
    // Stripe signs the exact bytes it sent: keep the body as text for the package to verify.
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    addFormBodies(app);

    app.post('/webhooks/stripe', { schema: { hide: true } }, async (request, reply) => {
      try {
        const header = request.headers['stripe-signature'];
        return await handleStripeWebhook(
          ctx,
          typeof request.body === 'string' ? request.body : '',
          Array.isArray(header) ? header[0] : header,
        );
      } catch (error) {
        return problem(request, reply, error);
      }
    });

    const simulated = () => {
      const processor = cardProcessorOf(ctx);
      if ('off' in processor || processor.name !== 'simulated') throw new NotFound('simulated processor');
    };

    app.get<{ Params: { ref: string }; Querystring: ReturnAddresses }>(
      '/simulated-processor/checkout/:ref',
      { schema: { hide: true } },
      async (request, reply) => {
        try {
          simulated();
          const back = returnAddresses(ctx, request.query, `${request.protocol}://${request.host}`);
          const checkout = await simulatedCheckout(ctx, request.params.ref);
          const hidden = (['success_url', 'cancel_url'] as const)
            .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(back[name] ?? '')}">`)
            .join('');
          const buttons =
            checkout.pstatus === 'pending'
              ? outcomes
                  .map(
                    (outcome) =>
                      `<form method="post" action="/simulated-processor/checkout/${escapeHtml(checkout.ref)}/${outcome}">${hidden}<button type="submit">${
                        { pay: 'Pay', fail: 'Fail the payment', cancel: 'Cancel' }[outcome]
                      }</button></form>`,
                  )
                  .join('')
              : `<p>This payment is ${escapeHtml(checkout.pstatus)}.</p>`;
          reply.type('text/html; charset=utf-8');
          return page(
            `<h1>Simulated payment</h1><p>Nubis's emulator stands in for a card processor: no card is asked for and no money moves.</p>
<p>Amount due: <strong>${formatMoney(checkout.grossMicros, 2)} USD</strong> (payment ${checkout.transactionId})</p>${buttons}`,
          );
        } catch (error) {
          return problem(request, reply, error);
        }
      },
    );

    app.post<{ Params: { ref: string; outcome: string }; Body: ReturnAddresses | undefined }>(
      '/simulated-processor/checkout/:ref/:outcome',
      { schema: { hide: true } },
      async (request, reply) => {
        try {
          simulated();
          const outcome = request.params.outcome as SimulatedOutcome;
          if (!outcomes.includes(outcome)) throw new NotFound('outcome');
          // Checked before anything is decided: an edited link changes nothing.
          const addresses = returnAddresses(ctx, request.body ?? {}, `${request.protocol}://${request.host}`);
          const decided = await decideSimulatedCheckout(ctx, request.params.ref, outcome);
          const back = decided === 'pay' ? addresses.success_url : addresses.cancel_url;
          if (back)
            return reply.redirect(decided === 'fail' ? back.replace('outcome=cancelled', 'outcome=failed') : back, 303);
          reply.type('text/html; charset=utf-8');
          return page(`<h1>Simulated payment</h1><p>Done: ${escapeHtml(decided)}.</p>`);
        } catch (error) {
          return problem(request, reply, error);
        }
      },
    );
  };
}
