// A local stand-in for the part of Stripe's HTTP API Nubis calls (Checkout Sessions, reading a
// PaymentIntent's fee), so tests run the real `stripe` package against it, pointed here with the
// package's host/port/protocol settings (STRIPE_API_URL). Webhooks are signed with the package's
// own test-header helper.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export const WEBHOOK_SECRET = 'whsec_test_nubis_0123456789abcdef';
export const SECRET_KEY = 'sk_test_nubis_0123456789abcdef';

export interface StandIn {
  url: string;
  /** The form fields of every Checkout Session created, in order. */
  sessions: { id: string; fields: URLSearchParams; idempotencyKey: string | undefined }[];
  close(): Promise<void>;
}

export async function startStripeStandIn(feeCents = 103): Promise<StandIn> {
  const sessions: StandIn['sessions'] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://stand-in');
      const send = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${sessions.length}` });
        response.end(JSON.stringify(value));
      };
      if (request.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
        const key = request.headers['idempotency-key'];
        const idempotencyKey = Array.isArray(key) ? key[0] : key;
        const again = sessions.find((s) => idempotencyKey && s.idempotencyKey === idempotencyKey);
        const id = again?.id ?? `cs_test_${sessions.length + 1}`;
        if (!again) sessions.push({ id, fields: new URLSearchParams(body), idempotencyKey });
        return send(200, {
          id,
          object: 'checkout.session',
          mode: 'payment',
          payment_status: 'unpaid',
          status: 'open',
          url: `https://checkout.stripe.test/c/pay/${id}`,
        });
      }
      const intent = /^\/v1\/payment_intents\/([\w]+)$/.exec(url.pathname);
      if (request.method === 'GET' && intent)
        return send(200, {
          id: intent[1],
          object: 'payment_intent',
          latest_charge: {
            id: `ch_for_${intent[1]}`,
            object: 'charge',
            balance_transaction: { id: `txn_for_${intent[1]}`, object: 'balance_transaction', fee: feeCents },
          },
        });
      send(404, {
        error: { type: 'invalid_request_error', message: `no stand-in for ${request.method} ${url.pathname}` },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    sessions,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const signer = new Stripe(SECRET_KEY);
let eventCount = 0;

/** A Stripe event as its webhook posts it, with a signature header made by the package. */
export function stripeEvent(
  type: string,
  object: Record<string, unknown>,
  options: { id?: string; secret?: string; timestamp?: number } = {},
): { payload: string; signature: string; id: string } {
  const id = options.id ?? `evt_test_${Date.now()}_${++eventCount}`;
  const payload = JSON.stringify({
    id,
    object: 'event',
    api_version: '2025-01-01',
    created: Math.floor(Date.now() / 1000),
    type,
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
  });
  return { payload, signature: signatureOf(payload, options), id };
}

/** The Stripe-Signature header the package makes for a payload (any text, a malformed event's too). */
export function signatureOf(payload: string, options: { secret?: string; timestamp?: number } = {}): string {
  return signer.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? WEBHOOK_SECRET,
    ...(options.timestamp !== undefined ? { timestamp: options.timestamp } : {}),
  });
}
