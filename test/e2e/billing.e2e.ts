// Adding funds through the console, in Chromium: a card top-up on the emulator's simulated
// processor (the console sends the customer to the processor's page and back to a confirmation,
// with the new balance and the transaction), a bank transfer with its reference, and an amount out
// of bounds shown next to its field; the month's invoice document downloaded as a PDF.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { createAccount } from '../support/accounts.ts';
import { deployServer } from '../support/servers.ts';
import { consoleSuite, heading, newPage, signIn, withScreenshots } from './browser.ts';

const { nubis, browser } = await consoleSuite({ PAYMENT_PROCESSOR: 'simulated' });
let context: BrowserContext | undefined;

/** A page in a context of its own (the previous one closed), at the console's usual size. */
async function freshPage(): Promise<Page> {
  await context?.close().catch(() => {});
  const page = await newPage(browser);
  context = page.context();
  return page;
}

/** Logs `account` in through the form and opens Billing. */
async function openBilling(page: Page, account: { email: string; password: string }): Promise<void> {
  await signIn(page, nubis.url, account);
  await page.getByRole('link', { name: 'Billing' }).click();
  await heading(page, 'Billing').waitFor();
}

describe('adding funds in the console', () => {
  test('a customer pays by card on the simulated processor and sees the new balance and the transaction', async () => {
    const page = await freshPage();
    await withScreenshots(
      'add funds',
      () => [page],
      async () => {
        const account = await createAccount(nubis, { credit: 0 });
        await openBilling(page, account);

        // Out of bounds: the API's reason shows under the Amount field.
        const amount = page.getByLabel('Amount (USD)', { exact: true });
        await amount.fill('1');
        await page.getByRole('button', { name: 'Pay by card', exact: true }).click();
        await page.locator('.field-error').first().waitFor();
        assert.equal(await amount.getAttribute('aria-invalid'), 'true');

        // By card: to the processor's page, pay, and back to the confirmation.
        await amount.fill('20');
        await page.getByRole('button', { name: 'Pay by card', exact: true }).click();
        await heading(page, 'Simulated payment').waitFor();
        assert.match((await page.locator('body').textContent()) ?? '', /24\.20 USD/, '20 USD plus 21 % VAT');
        await page.getByRole('button', { name: 'Pay', exact: true }).click();
        await heading(page, 'Billing').waitFor();
        await page.getByText('Payment received: $20.00 added to your balance.').waitFor();
        await page.locator('.big', { hasText: '$20.00' }).waitFor();
        const row = page.getByRole('row').filter({ hasText: 'Card payment' });
        await row.filter({ hasText: 'Done' }).waitFor();
        assert.match((await row.textContent()) ?? '', /\$20\.00/);
        const info = await nubis.request('GET', '/v1.3/account/info', { token: account.token });
        assert.equal(info.body.balance, 20);

        // By bank transfer: the reference to put on it, and the transfer listed as awaited.
        await amount.fill('30');
        await page.getByRole('button', { name: 'Pay by bank transfer', exact: true }).click();
        const transfers = await nubis.request('GET', '/v1.3/transaction/list', { token: account.token });
        const pending = transfers.body.transactions.find((t: { ptype: string }) => t.ptype === 'bank');
        assert.ok(pending?.reference);
        await page.getByRole('heading', { name: 'Bank transfers awaited' }).waitFor();
        await page.getByRole('cell', { name: pending.reference, exact: true }).waitFor();
        await page.getByText(`with the reference ${pending.reference}`).waitFor();

        // The month turns: its invoice document is listed, and downloads as a PDF.
        const now = Date.parse((await nubis.admin('GET', '/admin/clock')).body.now);
        const date = new Date(now);
        await nubis.advance(Math.ceil((Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1, 1) - now) / 1000));
        const documents = await nubis.request('GET', '/v1.3/document/list', { token: account.token });
        const [document] = documents.body.documents;
        assert.ok(document);
        await page.reload();
        await heading(page, 'Billing').waitFor();
        // One number format and one file name, as the API, the PDF and the CLI give them (issue 39).
        const number = String(document.number).padStart(6, '0');
        await page.getByRole('cell', { name: number, exact: true }).waitFor();
        const save = page.getByRole('button', { name: `Download invoice ${number} (${document.period})` });
        const [download] = await Promise.all([page.waitForEvent('download'), save.click()]);
        assert.equal(download.suggestedFilename(), `invoice-${number}-${document.period}.pdf`);
        const saved = await download.path();
        assert.equal(readFileSync(saved).subarray(0, 5).toString(), '%PDF-');
      },
    );
  });

  // Issue 39: invoice lines said "server (active)" twice, a seed credit read "operator", and the
  // VAT was added on the processor's page without being said first.
  test('invoice lines name their server, money words, an abandoned checkout expired, VAT said before paying', async () => {
    const page = await freshPage();
    await withScreenshots(
      'billing words',
      () => [page],
      async () => {
        const account = await createAccount(nubis);
        await deployServer(nubis, account.token, { label: 'shop-web' });
        await deployServer(nubis, account.token, { label: 'shop-db' });
        // A checkout opened and left: it expires after the simulated processor's day, and says so.
        const abandoned = await nubis.request('POST', '/v1.3/payment/checkout', {
          token: account.token,
          body: { amount: 10, return_url: `${nubis.url}/#/billing` },
        });
        assert.equal(abandoned.status, 201, JSON.stringify(abandoned.body));
        await nubis.advance(86_400 + 60);
        await openBilling(page, account);

        const invoices = page.getByRole('region', { name: 'Invoices', exact: true });
        for (const label of ['shop-web', 'shop-db'])
          await invoices.getByRole('cell', { name: new RegExp(`^${label} \\(`) }).waitFor();
        assert.equal(await invoices.getByRole('cell', { name: /\(active\)/ }).count(), 0);

        const transactions = page.getByRole('region', { name: 'Transactions', exact: true });
        await transactions.getByRole('cell', { name: 'Credit', exact: true }).waitFor();
        assert.equal(await transactions.getByRole('cell', { name: 'operator', exact: true }).count(), 0);
        await transactions.getByRole('cell', { name: 'Expired: the checkout was left unpaid', exact: true }).waitFor();

        await page.getByLabel('Amount (USD)', { exact: true }).fill('20');
        await page.getByText('You pay $24.20: $20.00 plus 21 % VAT ($4.20). Your balance grows by $20.00.').waitFor();
      },
    );
  });
});
