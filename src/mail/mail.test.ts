// Mail over SMTP against a local SMTP server: a mail leaves at once after the call that
// queued it; a failed delivery never fails that call, stays in the outbox, and is retried by
// the mail sweep once its back-off (on the server's clock) is due.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { activationUuidFromMail, createAccount, mailsTo, registerBody } from '../../test/support/accounts.ts';
import { deliverPendingMail } from './mail.service.ts';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

const received: Received[] = [];
let refuse = false;
const smtp = new SMTPServer({
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      if (refuse) {
        const error = Object.assign(new Error('mailbox busy, try again later'), { responseCode: 451 });
        return callback(error);
      }
      received.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address),
        raw: Buffer.concat(chunks).toString('utf8'),
      });
      callback();
    });
  },
});

let nubis: TestInstance;
before(async () => {
  smtp.listen(0, '127.0.0.1');
  await once(smtp.server, 'listening');
  const { port } = smtp.server.address() as AddressInfo;
  nubis = await startTestInstance({ SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Nubis Test <robot@nubis.test>' });
});
after(async () => {
  await nubis.close();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});

/**
 * Polls until `check` holds; the bound (60 s, which a loaded machine may need) only keeps a
 * broken build from hanging the suite.
 */
async function eventually<T>(label: string, probe: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 1200; i++) {
    const value = await probe();
    if (check(value)) return value;
    await sleep(50);
  }
  throw new Error(`never happened: ${label}`);
}

const smtpTo = (email: string) => received.filter((mail) => mail.to.includes(email));

describe('SMTP delivery', () => {
  test('the activation mail leaves over SMTP right after register, and the outbox says so', async () => {
    const body = registerBody();
    const email = body.email as string;
    const result = await nubis.request('POST', '/v1.3/account/register', { body });
    assert.equal(result.status, 201);
    const [mail] = await eventually(
      'activation mail delivered',
      async () => smtpTo(email),
      (mails) => mails.length === 1,
    );
    assert.equal(mail!.from, 'robot@nubis.test');
    const activation = await activationUuidFromMail(nubis, email);
    assert.ok(mail!.raw.includes(activation), 'the SMTP copy carries the activation uuid');
    assert.match(mail!.raw, /^Subject: Activate your Nubis account/m);
    const [outbox] = await eventually(
      'outbox marks it delivered',
      () => mailsTo(nubis, email),
      (mails) => mails[0]?.delivered === true,
    );
    assert.equal(outbox!.attempts, 1);
    assert.equal(outbox!.last_error, null);
  });

  test('a refused delivery does not fail the call, stays in the outbox, and is retried when due', async () => {
    const account = await createAccount(nubis);
    await eventually(
      'activation mail delivered',
      async () => smtpTo(account.email),
      (mails) => mails.length === 1,
    );

    refuse = true;
    const result = await nubis.request('PATCH', '/v1.3/account/reset', { body: { email: account.email } });
    assert.equal(result.status, 202);
    const [failed] = await eventually(
      'first attempt failed',
      () => mailsTo(nubis, account.email),
      (mails) => mails[0]?.last_error != null,
    );
    assert.equal(failed!.attempts, 1);
    assert.equal(failed!.delivered, false);
    assert.match(failed!.last_error ?? '', /mailbox busy/);
    assert.match(failed!.subject, /temporary/i);

    refuse = false;
    // The retry waits for its back-off on the server's clock: not yet due.
    assert.equal(await deliverPendingMail(nubis.running.ctx), 0);
    assert.equal((await mailsTo(nubis, account.email))[0]!.delivered, false);
    // Moving the clock past the back-off runs the retry before the advance answers.
    await nubis.advance(31);
    assert.equal(await deliverPendingMail(nubis.running.ctx), 0);
    const [retried] = await mailsTo(nubis, account.email);
    assert.equal(retried!.delivered, true);
    assert.equal(retried!.attempts, 2);
    assert.equal(retried!.last_error, null);
    const copies = smtpTo(account.email);
    assert.equal(copies.length, 2);
    assert.ok(copies[1]!.raw.includes('Temporary password: '));
    // Delivered mail is not sent again.
    await nubis.advance(3600);
    assert.equal(await deliverPendingMail(nubis.running.ctx), 0);
  });
});
