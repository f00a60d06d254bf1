// The virtual clock moves everything at once (issue 11): one scenario over HTTP, run against one
// instance (src/accounts/operator.test.ts, SQLite and PostgreSQL) and against two instances on one
// database (test/scale-out/clock.scale.ts), where one instance moves the clock and the other reads.
//
// It needs an SMTP server that refuses every mail (refusingSmtp below), so that mail retries show.

import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { SMTPServer } from 'smtp-server';

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON read by assertions
  body: any;
}

/** One instance's client: a request with an optional bearer token. */
export type Call = (method: string, path: string, options?: { token?: string; body?: unknown }) => Promise<Answer>;

export interface ClockScenario {
  /** The instance whose clock advance is called. */
  mover: Call;
  /** The instance that reads afterwards (the same one, or another on the same database). */
  reader: Call;
  adminToken: string;
  /** SIM_PROVISION_SECONDS of the instances. */
  provisionSeconds: number;
}

/** An SMTP server that answers every mail with a temporary failure. */
export async function refusingSmtp(): Promise<{ url: string; close(): Promise<void> }> {
  const smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () =>
        callback(Object.assign(new Error('mailbox busy, try again later'), { responseCode: 451 })),
      );
    },
  });
  smtp.listen(0, '127.0.0.1');
  await once(smtp.server, 'listening');
  const { port } = smtp.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const serverBody = { hostname: 'clock.example.com', label: 'clock', region: 101, image: 1001, plan: 1 };
const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;

async function account(t: ClockScenario, credit: string): Promise<{ token: string; id: number; email: string }> {
  const email = `clock-${randomBytes(5).toString('hex')}@example.com`;
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const registered = await t.mover('POST', '/v1.3/account/register', {
    body: { email, password, firstname: 'Clock', lastname: 'Test', accept_tos: true, country: 'NL' },
  });
  assert.equal(registered.status, 201);
  const token = registered.body.token as string;
  let info = await t.mover('GET', '/v1.3/account/info', { token });
  if (!info.body.activated) {
    const outbox = await t.mover('GET', `/admin/outbox?to=${encodeURIComponent(email)}`, { token: t.adminToken });
    const uuid = /Activation uuid: ([0-9a-f-]{36})/.exec(outbox.body.messages[0].text)![1];
    assert.equal((await t.mover('PUT', '/v1.3/account/activate', { body: { uuid } })).status, 202);
    info = await t.mover('GET', '/v1.3/account/info', { token });
  }
  const credited = await t.mover('POST', `/admin/accounts/${info.body.id}/credit`, {
    token: t.adminToken,
    body: { amount: credit },
  });
  assert.equal(credited.status, 201);
  return { token, id: info.body.id, email };
}

async function advance(t: ClockScenario, seconds: number): Promise<number> {
  const moved = await t.mover('POST', '/admin/clock/advance', { token: t.adminToken, body: { seconds } });
  assert.equal(moved.status, 200, JSON.stringify(moved.body));
  return Date.parse(moved.body.now);
}

/**
 * The scenario. Spec and issue 11: after POST /admin/clock/advance the next request sees every
 * effect the time implies, the same as if the time had passed in real life: one automatic backup
 * for each day passed, named by its day, with retention applied to each; the out-of-funds actions
 * at the instant the balance reached zero; every mail retry that came due; expiries.
 */
export async function runClockScenario(t: ClockScenario): Promise<void> {
  // Line the clock up at 06:00 UTC, far from a day's start, so no instant below sits on a boundary.
  const clock = await t.mover('GET', '/admin/clock', { token: t.adminToken });
  const now0 = Date.parse(clock.body.now);
  const sixAm = Math.floor(now0 / DAY_MS) * DAY_MS + 6 * HOUR_MS;
  await advance(t, Math.round(((sixAm > now0 ? sixAm : sixAm + DAY_MS) - now0) / 1000));

  const rich = await account(t, '100');
  const plans = await t.mover('GET', '/v1.3/plan/list');
  const hourlyMicros = Math.round(plans.body.plans['1'].price_hourly * 1_000_000);
  // Eight-odd hours of plan 1: the balance reaches zero at the start of the hour that spends it.
  const poorCreditMicros = 50_000;
  const poor = await account(t, '0.05');

  const backedUp = await t.mover('POST', '/v1.3/server/create', {
    token: rich.token,
    body: { ...serverBody, auto_backups: true },
  });
  assert.equal(backedUp.status, 201, JSON.stringify(backedUp.body));
  const drained = await t.mover('POST', '/v1.3/server/create', { token: poor.token, body: serverBody });
  assert.equal(drained.status, 201, JSON.stringify(drained.body));
  // A reset mails a temporary password valid for an hour: an expiry.
  assert.equal((await t.mover('PATCH', '/v1.3/account/reset', { body: { email: rich.email } })).status, 202);
  const resetMail = (
    await t.mover('GET', `/admin/outbox?to=${encodeURIComponent(rich.email)}`, { token: t.adminToken })
  ).body.messages.find((m: { subject: string }) => /temporary/i.test(m.subject));
  const temporary = /^Temporary password: (\S+)$/m.exec(resetMail.text)![1]!;

  // Three days and five hours in one jump.
  const end = await advance(t, 3 * 86_400 + 5 * 3600);

  // Backups: the day the server came up (taken when provisioning ended), then one at the start of
  // each following day, each named by its day, each kept seven days.
  const serverInfo = await t.reader('GET', `/v1.3/server/info/${backedUp.body.uuid}`, { token: rich.token });
  assert.equal(serverInfo.status, 200);
  const created = Date.parse(serverInfo.body.created);
  const expectedBackups = (at: number) => {
    const days: { name: string; created: string; expires: string }[] = [];
    for (let day = Math.floor(created / DAY_MS) * DAY_MS; day <= at; day += DAY_MS) {
      const taken = Math.max(day, created + t.provisionSeconds * 1000);
      if (taken + 7 * DAY_MS <= at) continue;
      days.push({
        name: `backup ${iso(day).slice(0, 10)}`,
        created: iso(taken),
        expires: iso(taken + 7 * DAY_MS),
      });
    }
    return days;
  };
  const backupsOf = async () =>
    (await t.reader('GET', '/v1.3/snapshot/list', { token: rich.token })).body.snapshots
      .filter((s: { type: string; server_id: string }) => s.type === 'backup' && s.server_id === backedUp.body.uuid)
      .map((s: { name: string; created: string; expires: string; status: string }) => ({
        name: s.name,
        created: s.created,
        expires: s.expires,
      }))
      .sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name));
  assert.equal(expectedBackups(end).length, 4);
  assert.deepEqual(await backupsOf(), expectedBackups(end));

  // Out of funds: marked, powered off and mailed at the instant the balance reached zero.
  const hours = Math.ceil(poorCreditMicros / hourlyMicros);
  const drainedInfo = await t.reader('GET', `/v1.3/server/info/${drained.body.uuid}`, { token: poor.token });
  assert.equal(drainedInfo.body.power, 'stopped');
  const poorInfo = await t.reader('GET', '/v1.3/account/info', { token: poor.token });
  assert.ok(poorInfo.body.balance <= 0);
  assert.equal(poorInfo.body.servers.running, 0);
  const poorMails = (
    await t.reader('GET', `/admin/outbox?to=${encodeURIComponent(poor.email)}`, { token: t.adminToken })
  ).body.messages.filter((m: { subject: string }) => /balance has run out/.test(m.subject));
  assert.equal(poorMails.length, 1);
  const zeroAt = Date.parse(drainedInfo.body.created) + (hours - 1) * HOUR_MS;
  assert.match(poorMails[0].text, new RegExp(`reached zero at ${iso(zeroAt)}`));
  assert.equal(poorMails[0].created, iso(zeroAt));

  // Mail retries: every mail was refused; each back-off that came due was tried, up to the last
  // of its ten attempts (30 s · 2ⁿ, at most an hour apart: about three hours in all).
  for (const mail of [...poorMails, resetMail]) {
    const [found] = (
      await t.reader('GET', `/admin/outbox?to=${encodeURIComponent(mail.to)}`, { token: t.adminToken })
    ).body.messages.filter((m: { id: number }) => m.id === mail.id);
    assert.equal(found.delivered, false);
    assert.equal(found.attempts, 10, mail.subject);
    assert.match(found.last_error, /mailbox busy/);
  }

  // Expiry: the temporary password no longer opens the account.
  const login = await t.reader('POST', '/v1.3/account/login', { body: { email: rich.email, password: temporary } });
  assert.equal(login.status, 200);
  assert.equal((await t.reader('GET', '/v1.3/account/info', { token: login.body.token })).status, 401);

  // Seven more days: retention removes each backup seven days after it was taken, and a backup is
  // still taken for every day passed.
  const later = await advance(t, 7 * 86_400);
  const kept = expectedBackups(later);
  assert.equal(kept.length, 7);
  assert.deepEqual(await backupsOf(), kept);
}
