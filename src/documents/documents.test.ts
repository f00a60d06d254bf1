// Monthly invoice documents over HTTP: a month of usage and two payments (a card top-up through
// the simulated processor and a bank transfer) give a PDF whose text (Debian's pdftotext) shows
// the month's invoice/sum totals, the payments with their VAT and the balance carried over; it is
// issued on the first of the next month by the sweep (also when the clock jumps months), mailed
// with the PDF attached, downloadable by its account (no other) and the operator, and numbered
// without gaps across accounts.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN, startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { standardServer } from '../../test/support/servers.ts';

let nubis: TestInstance;
const scratch = mkdtempSync(join(tmpdir(), 'nubis-documents-'));
/** Every message the SMTP server received, raw. */
const delivered: { to: string[]; raw: string }[] = [];
const smtp = new SMTPServer({
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      delivered.push({
        to: session.envelope.rcptTo.map((r) => r.address),
        raw: Buffer.concat(chunks).toString('utf8'),
      });
      callback();
    });
  },
});

before(async () => {
  smtp.listen(0, '127.0.0.1');
  await once(smtp.server, 'listening');
  const { port } = smtp.server.address() as AddressInfo;
  nubis = await startTestInstance({ PAYMENT_PROCESSOR: 'simulated', SMTP_URL: `smtp://127.0.0.1:${port}` });
});
after(async () => {
  await nubis?.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
  rmSync(scratch, { recursive: true, force: true });
});

async function now(): Promise<number> {
  return Date.parse((await nubis.admin('GET', '/admin/clock')).body.now);
}

/** Moves the clock to `instant` (it only moves forward). */
async function advanceTo(instant: number): Promise<void> {
  const seconds = Math.ceil((instant - (await now())) / 1000);
  if (seconds > 0) await nubis.advance(seconds);
}

function nextMonthStart(instant: number, months = 1): number {
  const date = new Date(instant);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1);
}

/** A card top-up paid on the simulated processor's page. */
async function payByCard(account: TestAccount, amount: number): Promise<void> {
  const started = await nubis.request('POST', '/v1.3/payment/checkout', { token: account.token, body: { amount } });
  assert.equal(started.status, 201, JSON.stringify(started.body));
  const url = new URL(started.body.checkout_url);
  const paid = await fetch(`${nubis.url}${url.pathname}/pay`, { method: 'POST', redirect: 'manual' });
  assert.equal(paid.status, 200);
}

async function payByTransfer(account: TestAccount, amount: number): Promise<void> {
  const requested = await nubis.request('POST', '/v1.3/payment/bank_transfer', {
    token: account.token,
    body: { amount },
  });
  assert.equal(requested.status, 201);
  const received = await nubis.admin('POST', `/admin/transactions/${requested.body.transaction.id}/received`);
  assert.equal(received.status, 200);
}

function pdfText(pdf: ArrayBuffer): string {
  const file = join(scratch, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, Buffer.from(pdf));
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
}

async function download(
  path: string,
  token: string,
): Promise<{ status: number; type: string | null; body: ArrayBuffer }> {
  const response = await fetch(`${nubis.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, type: response.headers.get('content-type'), body: await response.arrayBuffer() };
}

const usd = (value: number) => value.toFixed(2);

describe('monthly invoice documents', () => {
  test('a month of usage and two payments give a document with the invoice/sum totals, the VAT and the balance', async () => {
    // Start the month afresh, a day in, so the month holds whole days of usage.
    const monthStart = nextMonthStart(await now());
    await advanceTo(monthStart + 86_400_000);
    const account = await createAccount(nubis, { credit: 0 });
    const other = await createAccount(nubis, { credit: 0 });
    await payByCard(account, 25);
    await payByTransfer(account, 40);
    const created = await nubis.request('POST', '/v1.3/server/create', { token: account.token, body: standardServer });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const ip = await nubis.request('POST', '/v1.3/floating_ip/create', {
      token: account.token,
      body: { region_id: 101, ip_version: 4 },
    });
    assert.equal(ip.status, 201, JSON.stringify(ip.body));
    await nubis.advance(10 * 86_400);
    assert.equal(
      (await nubis.request('DELETE', `/v1.3/floating_ip/remove/${ip.body.uuid}`, { token: account.token })).status,
      204,
    );
    await nubis.request('GET', '/v1.3/account/info', { token: other.token });

    const monthEnd = nextMonthStart(monthStart);
    assert.deepEqual((await nubis.request('GET', '/v1.3/document/list', { token: account.token })).body.documents, []);
    await advanceTo(monthEnd + 3_600_000);

    const period = new Date(monthStart).toISOString().slice(0, 7);
    const sum = await nubis.request('POST', '/v1.3/invoice/sum', {
      token: account.token,
      body: { from: new Date(monthStart).toISOString(), to: new Date(monthEnd).toISOString() },
    });
    const fields = Object.entries(sum.body).filter(([key]) => !key.startsWith('ts_')) as [string, number][];
    const usage = fields.reduce((total, [, value]) => total + Math.round(value * 100), 0) / 100;
    assert.ok(usage > 0);

    const listed = await nubis.request('GET', '/v1.3/document/list', { token: account.token });
    assert.equal(listed.status, 200);
    assert.equal(listed.body.documents.length, 1);
    const [document] = listed.body.documents;
    assert.equal(document.period, period);
    // One number format and one file name: as printed, as mailed, as downloaded (issue 39).
    assert.equal(document.number_text, String(document.number).padStart(6, '0'));
    assert.equal(document.filename, `invoice-${document.number_text}-${period}.pdf`);
    const saved = await fetch(`${nubis.url}/v1.3/document/download/${document.id}`, {
      headers: { authorization: `Bearer ${account.token}` },
    });
    assert.equal(saved.headers.get('content-disposition'), `attachment; filename="${document.filename}"`);
    assert.equal(document.usage, usage);
    assert.deepEqual([document.payments, document.tax, document.opening_balance], [65, 13.65, 0]);
    assert.equal(document.closing_balance, Math.round((65 - usage) * 100) / 100);
    // The account that did nothing billable (no payment, no item) gets no document.
    assert.deepEqual((await nubis.request('GET', '/v1.3/document/list', { token: other.token })).body.documents, []);

    const pdf = await download(`/v1.3/document/download/${document.id}`, account.token);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.type, 'application/pdf');
    const text = pdfText(pdf.body);
    assert.match(text, new RegExp(`Invoice number: ${document.number_text}\\b`));
    assert.match(text, new RegExp(`Period: ${period}`));
    assert.match(text, /Example Hosting Ltd\./, "the seller's details");
    assert.match(text, new RegExp(account.email.replace(/[.+]/g, '\\$&')), "the customer's");
    for (const [field, value] of fields)
      if (value !== 0) assert.match(text, new RegExp(`Subtotal ${field}\\s+${usd(value)}\\b`), field);
    assert.match(text, new RegExp(`Usage total\\s+${usd(usage)}\\b`));
    assert.match(text, /Payments net\s+65\.00\b/);
    assert.match(text, /VAT\s+13\.65\b/, '21 % of 25 and of 40');
    assert.match(text, /Payments gross\s+78\.65\b/);
    assert.match(text, /5\.25 \(21\.00%\)/);
    assert.match(text, /8\.40 \(21\.00%\)/);
    assert.match(text, /Balance carried over\s+0\.00\b/);
    assert.match(text, new RegExp(`Balance at month end\\s+${usd(65 - usage)}\\b`));

    // Mailed with the PDF attached; the operator downloads the same bytes; no other account can.
    const outbox = await nubis.admin('GET', `/admin/outbox?to=${encodeURIComponent(account.email)}`);
    const mail = outbox.body.messages.find((m: { subject: string }) => /invoice/i.test(m.subject));
    assert.ok(mail, 'the invoice mail');
    assert.equal(mail.attachment, `invoice-${String(document.number).padStart(6, '0')}-${period}.pdf`);
    // …and over SMTP, the PDF as an application/pdf attachment under that name, the same bytes.
    let sent: { raw: string } | undefined;
    for (let attempt = 0; attempt < 120 && !sent; attempt++) {
      sent = delivered.find(
        (m) => m.to.includes(account.email) && /invoice/i.test(m.raw) && /application\/pdf/.test(m.raw),
      );
      if (!sent) await sleep(250);
    }
    assert.ok(sent, 'the invoice mail over SMTP');
    assert.match(sent.raw, new RegExp(`filename="?${mail.attachment}`));
    const base64 = /Content-Transfer-Encoding: base64\r?\n(?:[^\r\n]+\r?\n)*?\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(
      sent.raw.slice(sent.raw.indexOf('application/pdf')),
    )?.[1];
    assert.ok(base64, 'the attachment body');
    assert.deepEqual(Buffer.from(base64.replace(/\s+/g, ''), 'base64'), Buffer.from(pdf.body));
    const operatorCopy = await download(`/admin/documents/${document.id}/pdf`, ADMIN_TOKEN);
    assert.deepEqual(Buffer.from(operatorCopy.body), Buffer.from(pdf.body));
    const operatorList = await nubis.admin('GET', `/admin/accounts/${account.id}/documents`);
    assert.deepEqual(operatorList.body.documents, listed.body.documents);
    assert.equal((await download(`/v1.3/document/download/${document.id}`, other.token)).status, 404);
    assert.equal((await download('/v1.3/document/download/999999', account.token)).status, 404);

    // Another sweep round issues nothing twice.
    await nubis.advance(3600);
    assert.equal(
      (await nubis.request('GET', '/v1.3/document/list', { token: account.token })).body.documents.length,
      1,
    );
  });

  test('a clock jump over months issues each month, numbered without gaps across accounts, the balance carried over', async () => {
    const accounts = await Promise.all([1, 2, 3].map(() => createAccount(nubis, { credit: 0 })));
    for (const account of accounts) {
      await payByTransfer(account, 30);
      const created = await nubis.request('POST', '/v1.3/server/create', {
        token: account.token,
        body: standardServer,
      });
      assert.equal(created.status, 201);
    }
    const start = await now();
    await advanceTo(nextMonthStart(start, 2) + 3_600_000);
    const all: { number: number; period: string; opening_balance: number; closing_balance: number }[] = [];
    for (const account of accounts) {
      const { documents } = (await nubis.request('GET', '/v1.3/document/list', { token: account.token })).body;
      assert.equal(documents.length, 2, 'one for each month passed');
      const [later, earlier] = documents;
      assert.equal(later.opening_balance, earlier.closing_balance, 'the balance carried over');
      all.push(...documents);
    }
    // Every document of the deployment (the first test's too): numbers 1 to N, each once.
    const everyAccount = (await nubis.admin('GET', '/admin/accounts')).body.accounts as { id: number }[];
    const numbers: number[] = [];
    for (const { id } of everyAccount)
      numbers.push(
        ...(await nubis.admin('GET', `/admin/accounts/${id}/documents`)).body.documents.map(
          (d: { number: number }) => d.number,
        ),
      );
    numbers.sort((a, b) => a - b);
    assert.ok(numbers.length >= all.length + 2);
    assert.deepEqual(
      numbers,
      numbers.map((_, i) => i + 1),
    );
  });
});
