// Payments over HTTP: card top-ups through the real `stripe` package against a local stand-in of
// Stripe's API, its webhook (signature, tolerance, one credit however often and however
// concurrently an event arrives, refunds, disputes, events not acted on), the bounds of an
// amount, card payments off without keys, and bank transfers the operator marks received.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import {
  SECRET_KEY,
  type StandIn,
  startStripeStandIn,
  stripeEvent,
  WEBHOOK_SECRET,
} from '../../test/support/stripe-stand-in.ts';

let nubis: TestInstance;
let standIn: StandIn;

before(async () => {
  standIn = await startStripeStandIn();
  nubis = await startTestInstance({
    STRIPE_SECRET_KEY: SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: standIn.url,
    PAYMENT_MINIMUM: '5',
    PAYMENT_MAXIMUM: '1000',
  });
});
after(async () => {
  await nubis?.close();
  await standIn?.close();
});

async function balance(account: TestAccount): Promise<number> {
  const info = await nubis.request('GET', '/v1.3/account/info', { token: account.token });
  return info.body.balance;
}

async function transactions(account: TestAccount) {
  return (await nubis.request('GET', '/v1.3/transaction/list', { token: account.token })).body.transactions as {
    id: string;
    ptype: string;
    pstatus: string;
    amount: number;
    fee: number;
    taxrate: number;
    reference: string | null;
  }[];
}

function deliver(event: { payload: string; signature: string }) {
  return nubis.request('POST', '/webhooks/stripe', {
    rawBody: event.payload,
    headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
  });
}

/** A checkout of `amount` USD, and the Stripe session the stand-in made for it. */
async function checkout(account: TestAccount, amount: number | string) {
  const started = await nubis.request('POST', '/v1.3/payment/checkout', { token: account.token, body: { amount } });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  return { started: started.body, session: standIn.sessions.at(-1)! };
}

function paidSession(id: string, paymentIntent: string) {
  return { id, object: 'checkout.session', payment_status: 'paid', status: 'complete', payment_intent: paymentIntent };
}

describe('card top-ups through Stripe', () => {
  test('a checkout records a pending payment and sends the customer to a Checkout Session for amount plus VAT', async () => {
    const account = await createAccount(nubis, { credit: 0 });
    const { started, session } = await checkout(account, 25);
    assert.equal(started.checkout_url, `https://checkout.stripe.test/c/pay/${session.id}`);
    assert.equal(started.transaction.ptype, 'stripe');
    assert.equal(started.transaction.pstatus, 'pending');
    assert.equal(started.transaction.amount, 25);
    // The test accounts live in NL: 21 % in the shipped example rates.
    assert.equal(started.transaction.taxrate, 21);
    assert.equal(session.fields.get('line_items[0][price_data][unit_amount]'), '3025');
    assert.equal(session.fields.get('line_items[0][price_data][currency]'), 'usd');
    assert.equal(session.fields.get('client_reference_id'), started.transaction.id);
    assert.equal(session.idempotencyKey, `nubis-payment-${started.transaction.id}`);
    assert.equal(await balance(account), 0, 'nothing is credited before the processor says so');
  });

  test('a completed checkout credits once, though its event arrives three times at once', async () => {
    const account = await createAccount(nubis, { credit: 0 });
    const { started, session } = await checkout(account, 40);
    const event = stripeEvent('checkout.session.completed', paidSession(session.id, `pi_${session.id}`));
    const answers = await Promise.all([deliver(event), deliver(event), deliver(event)]);
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200],
    );
    assert.deepEqual(answers.map((a) => a.body.outcome).sort(), ['applied', 'duplicate', 'duplicate']);
    // A second event about the same session (Stripe may send async_payment_succeeded too) credits nothing more.
    const other = stripeEvent('checkout.session.async_payment_succeeded', paidSession(session.id, `pi_${session.id}`));
    assert.equal((await deliver(other)).body.outcome, 'no change');
    assert.equal(await balance(account), 40);
    const [payment] = await transactions(account);
    assert.equal(payment!.id, started.transaction.id);
    assert.equal(payment!.pstatus, 'completed');
    assert.equal(payment!.fee, 1.03, "the processor's fee, as its balance transaction reports it");
  });

  test('a bad signature, a stale one or none is refused and credits nothing', async () => {
    const account = await createAccount(nubis, { credit: 0 });
    const { session } = await checkout(account, 10);
    const object = paidSession(session.id, `pi_${session.id}`);
    const forged = stripeEvent('checkout.session.completed', object, { secret: 'whsec_someone_else_entirely' });
    const stale = stripeEvent('checkout.session.completed', object, {
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    for (const event of [forged, stale, { payload: forged.payload, signature: '' }]) {
      const answer = await deliver(event);
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.match(answer.body.error, /signature/i);
    }
    const tampered = stripeEvent('checkout.session.completed', object);
    const answer = await deliver({
      payload: tampered.payload.replace('"paid"', '"paid" '),
      signature: tampered.signature,
    });
    assert.equal(answer.status, 400);
    assert.equal(await balance(account), 0);
    assert.equal((await transactions(account))[0]!.pstatus, 'pending');
  });

  test('a refund is a transaction of its own that debits; a dispute debits and a won one gives back', async () => {
    const account = await createAccount(nubis, { credit: 0 });
    const { started, session } = await checkout(account, 50);
    const intent = `pi_${session.id}`;
    await deliver(stripeEvent('checkout.session.completed', paidSession(session.id, intent)));
    assert.equal(await balance(account), 50);

    // Half refunded (gross 30.25 of 60.50), then all of it: Stripe reports the running total.
    const charge = (refunded: number) => ({
      id: `ch_${session.id}`,
      object: 'charge',
      payment_intent: intent,
      amount: 6050,
      amount_refunded: refunded,
      refunded: refunded === 6050,
    });
    assert.equal((await deliver(stripeEvent('charge.refunded', charge(3025)))).status, 200);
    assert.equal(await balance(account), 25);
    await deliver(stripeEvent('charge.refunded', charge(6050)));
    assert.equal(await balance(account), 0);
    const list = await transactions(account);
    assert.deepEqual(
      list.map((t) => [t.amount, t.pstatus]),
      [
        [-25, 'refunded'],
        [-25, 'refunded'],
        [50, 'refunded'],
      ],
    );
    assert.equal(list[2]!.id, started.transaction.id);

    const second = await checkout(account, 20);
    const intent2 = `pi_${second.session.id}`;
    await deliver(stripeEvent('checkout.session.completed', paidSession(second.session.id, intent2)));
    const dispute = (status: string) => ({
      id: `dp_${second.session.id}`,
      object: 'dispute',
      payment_intent: intent2,
      amount: 2420,
      status,
    });
    await deliver(stripeEvent('charge.dispute.created', dispute('needs_response')));
    assert.equal(await balance(account), 0);
    await deliver(stripeEvent('charge.dispute.closed', dispute('won')));
    assert.equal(await balance(account), 20);
  });

  test('a failed or expired checkout leaves the payment failed or expired and nothing credited; unknown events are acknowledged', async () => {
    const account = await createAccount(nubis, { credit: 0 });
    const { session } = await checkout(account, 10);
    const expired = await deliver(
      stripeEvent('checkout.session.expired', { id: session.id, object: 'checkout.session', payment_status: 'unpaid' }),
    );
    assert.equal(expired.status, 200);
    // Said as such, so the customer knows the checkout ran out rather than the card failing (issue 39).
    assert.equal((await transactions(account))[0]!.pstatus, 'expired');
    const late = await deliver(stripeEvent('checkout.session.completed', paidSession(session.id, 'pi_late')));
    assert.equal(late.body.outcome, 'no change');
    assert.equal(await balance(account), 0);
    for (const type of ['customer.created', 'invoice.paid', 'payout.paid']) {
      const answer = await deliver(stripeEvent(type, { id: 'x_1', object: type.split('.')[0] }));
      assert.equal(answer.status, 200, type);
      assert.equal(answer.body.received, true);
    }
    const unknownSession = await deliver(stripeEvent('checkout.session.completed', paidSession('cs_not_ours', 'pi_x')));
    assert.equal(unknownSession.status, 200);
    assert.equal(unknownSession.body.outcome, 'unknown payment');
  });

  test('amounts out of bounds are 400s naming the field', async () => {
    const account = await createAccount(nubis, { credit: 0 });
    const before = standIn.sessions.length;
    for (const path of ['/v1.3/payment/checkout', '/v1.3/payment/bank_transfer'])
      for (const amount of [4.99, 0, -10, 1000.01, 1e9, '12.345', 'ten', '']) {
        const answer = await nubis.request('POST', path, { token: account.token, body: { amount } });
        assert.equal(answer.status, 400, `${path} ${amount}: ${JSON.stringify(answer.body)}`);
        assert.deepEqual(
          answer.body.errors.map((e: { field: string }) => e.field),
          ['amount'],
          `${path} ${amount}`,
        );
      }
    for (const path of ['/v1.3/payment/checkout', '/v1.3/payment/bank_transfer']) {
      const missing = await nubis.request('POST', path, { token: account.token, body: {} });
      assert.equal(missing.status, 400);
      assert.equal(missing.body.errors[0].field, 'amount');
    }
    assert.equal(standIn.sessions.length, before, 'no session for a refused amount');
    assert.deepEqual(await transactions(account), []);
    const options = await nubis.request('GET', '/v1.3/payment/options', { token: account.token });
    assert.equal(options.status, 200);
    assert.deepEqual([options.body.minimum, options.body.maximum, options.body.taxrate], [5, 1000, 21]);
    assert.deepEqual(options.body.card, { available: true, processor: 'stripe', reason: null });
  });
});

describe('bank transfers', () => {
  test('a requested transfer waits with a reference; the operator marks it received once, crediting the balance', async () => {
    const account = await createAccount(nubis, { credit: 0 });
    const requested = await nubis.request('POST', '/v1.3/payment/bank_transfer', {
      token: account.token,
      body: { amount: '100' },
    });
    assert.equal(requested.status, 201, JSON.stringify(requested.body));
    const { transaction, instructions } = requested.body;
    assert.equal(transaction.ptype, 'bank');
    assert.equal(transaction.pstatus, 'pending');
    assert.match(transaction.reference, /^NUBIS-[0-9A-V]{8}$/);
    assert.equal(instructions.reference, transaction.reference);
    assert.equal(instructions.amount, 121);
    assert.ok(instructions.iban);
    assert.equal(await balance(account), 0);

    const awaited = await nubis.admin('GET', '/admin/transfers');
    assert.equal(awaited.status, 200);
    assert.ok(
      awaited.body.transfers.some(
        (t: { id: string; account_id: number }) => t.id === transaction.id && t.account_id === account.id,
      ),
    );

    const received = await nubis.admin('POST', `/admin/transactions/${transaction.id}/received`);
    assert.equal(received.status, 200, JSON.stringify(received.body));
    assert.equal(received.body.pstatus, 'completed');
    assert.equal(await balance(account), 100);
    const again = await nubis.admin('POST', `/admin/transactions/${transaction.id}/received`);
    assert.equal(again.status, 409);
    assert.equal(await balance(account), 100);
    assert.equal((await nubis.admin('POST', '/admin/transactions/999999999/received')).status, 404);
    const credit = (await transactions(account)).find((t) => t.id === transaction.id);
    assert.equal(credit?.pstatus, 'completed');
    const operatorCredit = await nubis.admin('GET', `/admin/accounts/${account.id}/transactions`);
    const notBank = operatorCredit.body.transactions.find((t: { ptype: string }) => t.ptype !== 'bank');
    assert.equal(notBank, undefined);
  });
});

describe('card payments without keys', () => {
  test('are off and say so; bank transfers still work', async () => {
    const bare = await startTestInstance();
    try {
      const account = await createAccount(bare, { credit: 0 });
      const options = await bare.request('GET', '/v1.3/payment/options', { token: account.token });
      assert.equal(options.body.card.available, false);
      assert.match(options.body.card.reason, /STRIPE_SECRET_KEY/);
      const refused = await bare.request('POST', '/v1.3/payment/checkout', {
        token: account.token,
        body: { amount: 10 },
      });
      assert.equal(refused.status, 409);
      assert.match(JSON.stringify(refused.body), /card payments are off/);
      const webhook = await bare.request('POST', '/webhooks/stripe', {
        rawBody: '{}',
        headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
      });
      assert.equal(webhook.status, 400);
      assert.match(webhook.body.error, /off/);
      const transfer = await bare.request('POST', '/v1.3/payment/bank_transfer', {
        token: account.token,
        body: { amount: 10 },
      });
      assert.equal(transfer.status, 201);
    } finally {
      await bare.close();
    }
  });
});

describe('the simulated processor (the emulator preset)', () => {
  // An abandoned checkout stayed pending forever (issue 39): it expires as a Stripe session does.
  test('a checkout left unpaid expires after SIMULATED_CHECKOUT_EXPIRY_SECONDS; Pay then credits nothing', async () => {
    const emulated = await startTestInstance({
      PAYMENT_PROCESSOR: 'simulated',
      SIMULATED_CHECKOUT_EXPIRY_SECONDS: '3600',
    });
    try {
      const account = await createAccount(emulated, { credit: 0 });
      const started = await emulated.request('POST', '/v1.3/payment/checkout', {
        token: account.token,
        body: { amount: 10, return_url: 'http://console.example/#/billing' },
      });
      assert.equal(started.status, 201, JSON.stringify(started.body));
      const status = async () =>
        (await emulated.request('GET', '/v1.3/transaction/list', { token: account.token })).body.transactions[0]
          .pstatus;
      await emulated.advance(3590);
      assert.equal(await status(), 'pending');
      await emulated.advance(20);
      assert.equal(await status(), 'expired');
      const url = new URL(started.body.checkout_url);
      const form = new URLSearchParams({
        success_url: url.searchParams.get('success_url')!,
        cancel_url: url.searchParams.get('cancel_url')!,
      });
      await fetch(`${emulated.url}${url.pathname}/pay`, { method: 'POST', body: form, redirect: 'manual' });
      assert.equal(await status(), 'expired');
      const info = await emulated.request('GET', '/v1.3/account/info', { token: account.token });
      assert.equal(info.body.balance, 0);
    } finally {
      await emulated.close();
    }
  });

  test('its checkout page pays once, fails or cancels on demand, and sends the customer back', async () => {
    const emulated = await startTestInstance({ PAYMENT_PROCESSOR: 'simulated' });
    try {
      const account = await createAccount(emulated, { credit: 0 });
      const start = async () => {
        const answer = await emulated.request('POST', '/v1.3/payment/checkout', {
          token: account.token,
          body: { amount: 10, return_url: 'http://console.example/#/billing' },
        });
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
        assert.equal(answer.body.transaction.ptype, 'simulated');
        return answer.body as { transaction: { id: string }; checkout_url: string };
      };
      const choose = async (checkoutUrl: string, outcome: string) => {
        const url = new URL(checkoutUrl);
        const page = await fetch(`${emulated.url}${url.pathname}${url.search}`);
        const html = await page.text();
        assert.equal(page.status, 200);
        assert.match(html, /12\.10 USD/, 'the amount plus 21 % VAT');
        const form = new URLSearchParams({
          success_url: url.searchParams.get('success_url')!,
          cancel_url: url.searchParams.get('cancel_url')!,
        });
        return fetch(`${emulated.url}${url.pathname}/${outcome}`, { method: 'POST', body: form, redirect: 'manual' });
      };
      const paid = await start();
      const answers = await Promise.all([choose(paid.checkout_url, 'pay'), choose(paid.checkout_url, 'pay')]);
      for (const answer of answers) {
        assert.equal(answer.status, 303);
        assert.equal(
          answer.headers.get('location'),
          `http://console.example/#/billing?payment=${paid.transaction.id}&outcome=paid`,
        );
      }
      const info = await emulated.request('GET', '/v1.3/account/info', { token: account.token });
      assert.equal(info.body.balance, 10, 'two clicks on Pay credit once');

      const failed = await start();
      const failAnswer = await choose(failed.checkout_url, 'fail');
      assert.match(failAnswer.headers.get('location')!, /outcome=failed$/);
      const cancelled = await start();
      const cancelAnswer = await choose(cancelled.checkout_url, 'cancel');
      assert.match(cancelAnswer.headers.get('location')!, /outcome=cancelled$/);
      const list = await emulated.request('GET', '/v1.3/transaction/list', { token: account.token });
      assert.deepEqual(
        list.body.transactions.map((t: { pstatus: string }) => t.pstatus),
        ['failed', 'failed', 'completed'],
      );
      // A fault rule on the click on Pay declines the payment (once), as a card declined would.
      const decline = await emulated.admin('POST', '/admin/faults', {
        match: { operation: 'payCheckout', account: account.email },
        action: { status: 402 },
        times: 1,
      });
      assert.equal(decline.status, 201, JSON.stringify(decline.body));
      const declined = await start();
      const declinedAnswer = await choose(declined.checkout_url, 'pay');
      assert.match(
        declinedAnswer.headers.get('location')!,
        new RegExp(`payment=${declined.transaction.id}&outcome=failed$`),
      );
      const retried = await start();
      assert.match((await choose(retried.checkout_url, 'pay')).headers.get('location')!, /outcome=paid$/);
      const after = await emulated.request('GET', '/v1.3/transaction/list', { token: account.token });
      assert.deepEqual(
        after.body.transactions.slice(0, 2).map((t: { pstatus: string }) => t.pstatus),
        ['completed', 'failed'],
      );
      assert.equal((await emulated.request('GET', '/v1.3/account/info', { token: account.token })).body.balance, 20);

      // A fault rule makes the checkout itself fail, as a processor outage would.
      const rule = await emulated.admin('POST', '/admin/faults', {
        match: { operation: 'createCheckout' },
        action: { status: 503 },
        times: 1,
      });
      assert.equal(rule.status, 201, JSON.stringify(rule.body));
      const refused = await emulated.request('POST', '/v1.3/payment/checkout', {
        token: account.token,
        body: { amount: 10 },
      });
      assert.equal(refused.status, 503);
    } finally {
      await emulated.close();
    }
  });
});
