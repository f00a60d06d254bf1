// A month of an account's money, black-box over HTTP on the virtual clock: credit, a server with
// automatic backups, a second one (a Windows licence, DDoS protection, hours paid up front with
// commit), a floating IP attached and detached, a free VPC, a resize, a snapshot, removals; then
// every invoice item, invoice sums over
// sub-intervals, the transaction list and the balance, against figures this file computes itself,
// hour by hour, from the documented prices and rules (the decisions table (docs/decisions.md), billing).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// Prices, from the catalog and the documented rules: hourly = ⌈monthly / 730⌉ micro-dollars;
// automatic backups 20 % of the plan; DDoS protection $10.00 a month; a floating IP $3.00 a month;
// snapshots $0.05 per GB-month; a licence its image's hourly_cost, capped at 730 hours a month.
const PLAN_1 = { hr: 6850, mo: 5_000_000 }; // $5.00
const PLAN_2 = { hr: 32_877, mo: 24_000_000 }; // $24.00
const BACKUPS_1 = { hr: 1370, mo: 1_000_000 };
const BACKUPS_2 = { hr: 6576, mo: 4_800_000 };
const FLOATING_IP = { hr: 4110, mo: 3_000_000 };
const DDOS = { hr: 13_699, mo: 10_000_000 };
const WINDOWS_LICENCE = { hr: 22_000, mo: 22_000 * 730 }; // image 1101, hourly_cost 0.022
const snapshotPrice = (gb: number) => ({ hr: Math.ceil((gb * 50_000) / 730), mo: gb * 50_000 });
const COMMIT_HOURS = 24;

/** An invoice item as this test expects it to be metered. */
interface Expected {
  type: string;
  hr: number;
  mo: number;
  created: number;
  removed: number | null;
  prepaidHours: number;
}

function monthOf(ms: number): number {
  const date = new Date(ms);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/**
 * What the item's hours that begin before `until` cost, as of `now`, walked hour by hour: an hour
 * is charged once it has begun, in the calendar month it begins in, capped per month; prepaid
 * hours cost nothing here but count towards the cap.
 */
function costBefore(item: Expected, until: number, now: number): number {
  let total = 0;
  let month = -1;
  let inMonth = 0;
  for (let hour = 0; ; hour++) {
    const begins = item.created + hour * HOUR;
    if (begins > now || begins >= until || (item.removed !== null && begins >= item.removed)) break;
    if (monthOf(begins) !== month) {
      month = monthOf(begins);
      inMonth = 0;
    }
    if (hour >= item.prepaidHours) total += Math.min(item.hr, Math.max(0, item.mo - inMonth * item.hr));
    inMonth++;
  }
  return total;
}

function usage(item: Expected, now: number): number {
  const end = item.removed ?? now + 1;
  return Math.ceil((Math.min(end, now + 1) - item.created) / HOUR);
}

/** Micro-dollars to whole cents, halves away from zero. */
function cents(micros: number): number {
  return Math.sign(micros) * Math.round(Math.abs(micros) / 10_000);
}

function iso(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

let nubis: TestInstance;
let account: TestAccount;
/** The clock as this test has moved it (the server's runs a few real seconds ahead at most). */
let at = 0;
let monthStart = 0;
let nextMonth = 0;
const items: Expected[] = [];
let serverA: { id: number; uuid: string };
/** The items of server A before its resize, after it, and of server B (all opened at once). */
let planOneItems: Expected[] = [];
let planTwoItems: Expected[] = [];
let serverBItems: Expected[] = [];
let ipUuid = '';
let snapshotUuid = '';

async function moveTo(target: number): Promise<void> {
  assert.ok(target >= at);
  await nubis.advance((target - at) / 1000);
  at = target;
}

async function call(method: string, path: string, body?: unknown, expected = 200) {
  const result = await nubis.request(method, path, { token: account.token, body });
  assert.equal(result.status, expected, `${method} ${path}: ${JSON.stringify(result.body)}`);
  return result.body;
}

function open(type: string, price: { hr: number; mo: number }, prepaidHours = 0): Expected {
  const item = { type, ...price, created: at, removed: null, prepaidHours };
  items.push(item);
  return item;
}

function charged(now: number): number {
  return items.reduce((sum, item) => sum + costBefore(item, Infinity, now), 0);
}

const credits = 120_000_000;
const commitCharge = COMMIT_HOURS * (PLAN_2.hr + WINDOWS_LICENCE.hr + DDOS.hr);

async function checkBalance(): Promise<void> {
  const info = await call('GET', '/v1.3/account/info');
  const balance = credits - commitCharge - charged(at);
  assert.equal(info.balance, cents(balance) / 100, `balance at ${iso(at)}`);
  const burn = items
    .filter((item) => item.removed === null && usage(item, at) > item.prepaidHours)
    .reduce((sum, item) => sum + item.hr, 0);
  assert.equal(info.billing.usage, burn / 1e6);
  assert.equal(info.billing.secondsdue, burn > 0 ? Math.floor((balance * 3600) / burn) : null);
}

before(async () => {
  nubis = await startTestInstance();
  // Ten minutes into the next UTC month. Items are opened at :10, :20, :30 or :40 past an hour and
  // every check happens at :05, :15, :25 or :35, so no check falls near the start of an hour; no
  // item is closed a whole number of hours after it opened. The server's clock runs a few real
  // seconds ahead of `at`, which then changes no count.
  at = nubis.running.ctx.clock.now();
  const now = new Date(at);
  monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 2, 1);
  await moveTo(monthStart + 10 * MINUTE);
});
after(async () => {
  await nubis.close();
});

describe('a month of billing', () => {
  test('credit, then two servers (one with backups, one with a licence, DDoS protection and 24 hours paid up front)', async () => {
    account = await createAccount(nubis, { credit: 100 });
    assert.equal((await nubis.admin('POST', `/admin/accounts/${account.id}/credit`, { amount: '20.00' })).status, 201);
    serverA = await call(
      'POST',
      '/v1.3/server/create',
      { hostname: 'a.example.com', label: 'a', region: 101, image: 1001, plan: 1, auto_backups: true },
      201,
    );
    planOneItems = [open('server', PLAN_1), open('backup', BACKUPS_1)];
    await call(
      'POST',
      '/v1.3/server/create',
      {
        hostname: 'b.example.com',
        label: 'b',
        region: 101,
        image: 1101,
        plan: 2,
        ddos_protection: true,
        commit: COMMIT_HOURS,
      },
      201,
    );
    serverBItems = [
      open('server', PLAN_2, COMMIT_HOURS),
      open('license', WINDOWS_LICENCE, COMMIT_HOURS),
      open('ddos_protection', DDOS, COMMIT_HOURS),
    ];
    await moveTo(at + 5 * MINUTE);
    await checkBalance();
  });

  test('a floating IP, attached to the server, and a VPC, which is free and opens no item', async () => {
    await moveTo(monthStart + 40 * MINUTE);
    const ip = await call('POST', '/v1.3/floating_ip/create', { region_id: 101, ip_version: 4 }, 201);
    ipUuid = ip.uuid;
    open('floating_ip', FLOATING_IP);
    await call('POST', '/v1.3/vpc/create', { region_id: 101, name: 'backend' }, 201);
    await moveTo(monthStart + 70 * MINUTE);
    await call('PATCH', '/v1.3/floating_ip/attach', { server_id: serverA.id, ip_id: ipUuid }, 202);
    await moveTo(at + 5 * MINUTE);
    await checkBalance();
  });

  test('after the prepaid day, the second server is billed too', async () => {
    await moveTo(monthStart + 10 * MINUTE + 2 * DAY + 5 * MINUTE);
    await checkBalance();
  });

  test("a resize closes the plan's items and opens them at the new price", async () => {
    await moveTo(monthStart + 30 * MINUTE + 5 * DAY);
    await call('POST', '/v1.3/server/resize', { server_id: serverA.id, plan_id: 2 }, 202);
    for (const item of planOneItems) item.removed = at;
    planTwoItems = [open('server', PLAN_2), open('backup', BACKUPS_2)];
    await moveTo(at + 5 * MINUTE);
    await checkBalance();
  });

  test('a snapshot, billed by its size', async () => {
    await moveTo(monthStart + 20 * MINUTE + 7 * DAY);
    const created = await call(
      'POST',
      '/v1.3/snapshot/create',
      { name: 'before upgrade', server_id: serverA.uuid },
      201,
    );
    snapshotUuid = created.snapshot_id;
    const listed = (await call('GET', '/v1.3/snapshot/list')).snapshots.find(
      (s: { uuid: string }) => s.uuid === snapshotUuid,
    );
    assert.ok(listed.size_gb >= 1);
    open('snapshot', snapshotPrice(listed.size_gb));
    await moveTo(at + 5 * MINUTE);
    await checkBalance();
  });

  test('removals stop billing: the floating IP, the snapshot, the first server', async () => {
    await moveTo(monthStart + 20 * MINUTE + 12 * DAY);
    await call('PATCH', '/v1.3/floating_ip/detach', { server_id: serverA.id, ip_id: ipUuid }, 202);
    await call('DELETE', `/v1.3/floating_ip/remove/${ipUuid}`, undefined, 204);
    items.find((item) => item.type === 'floating_ip')!.removed = at;
    await moveTo(monthStart + 10 * MINUTE + 20 * DAY);
    await call('DELETE', `/v1.3/snapshot/remove/${snapshotUuid}`, undefined, 204);
    items.find((item) => item.type === 'snapshot')!.removed = at;
    await moveTo(monthStart + 10 * MINUTE + 25 * DAY);
    await call('DELETE', `/v1.3/server/remove/${serverA.id}`, undefined, 204);
    for (const item of planTwoItems) item.removed = at;
    await moveTo(at + 5 * MINUTE);
    await checkBalance();
  });

  test('into the next month: every invoice item, the balance and the transactions are exact', async () => {
    // 5 h 5 min into the next month: the second server's hour that began at 23:10 on the last day
    // belongs to the old month; the month's cap applies to the old month alone.
    await moveTo(nextMonth + 5 * HOUR + 5 * MINUTE);
    await checkBalance();

    const list = await call('GET', '/v1.3/invoice/list');
    assert.equal(list.meta.total, items.length);
    // The spec's fields; the extensions naming each item are checked in billing.test.ts.
    const shown = list.invoices.map((item: Record<string, unknown>) => ({
      ...item,
      description: undefined,
      resource_id: undefined,
      ts_created: undefined,
      ts_removed: undefined,
    }));
    const expected = [...items].reverse().map((item) => ({
      active: item.removed === null ? 1 : 0,
      amount_hr: item.hr / 1e6,
      amount_mo: item.mo / 1e6,
      resource_type: item.type,
      usage: usage(item, at),
      description: undefined,
      resource_id: undefined,
      ts_created: undefined,
      ts_removed: undefined,
    }));
    assert.deepEqual(shown, expected);
    [...items].reverse().forEach((item, i) => {
      const entry = list.invoices[i];
      // The server's clock runs ahead of this test's by the real seconds the test has taken.
      assert.ok(Math.abs(Date.parse(entry.ts_created) - item.created) < 60_000, `ts_created of ${item.type}`);
      if (item.removed === null) assert.equal(entry.ts_removed, null);
      else assert.ok(Math.abs(Date.parse(entry.ts_removed) - item.removed) < 60_000, `ts_removed of ${item.type}`);
    });
    // The second server with its commit: a whole month of hours, 24 of them paid up front.
    for (const item of serverBItems) assert.equal(usage(item, at), Math.round((nextMonth - monthStart) / HOUR) + 5);

    const transactions = await call('GET', '/v1.3/transaction/list');
    assert.deepEqual(transactions.meta, { total: 3 });
    assert.deepEqual(
      transactions.transactions.map((t: { ptype: string; amount: number }) => [t.ptype, t.amount]),
      [
        ['commit', -cents(commitCharge) / 100],
        ['operator', 20],
        ['operator', 100],
      ],
    );
  });

  test('invoice sums: each sub-interval exact to the cent, and they add up to the month', async () => {
    const fields = [
      'server',
      'license',
      'snapshot',
      'backup',
      'block_storage',
      'object_storage',
      'ddos_protection',
      'floating_ip',
      'vpc',
      'bandwidth',
    ] as const;
    type Sum = Record<(typeof fields)[number], number> & { ts_start: string; ts_end: string };
    const expectedSum = (from: number, to: number): Sum => {
      const sum = { ts_start: iso(from), ts_end: iso(to) } as Sum;
      for (const field of fields) {
        const ofType = items.filter((item) => item.type === field);
        const before = (t: number) => ofType.reduce((total, item) => total + costBefore(item, t, at), 0);
        // Running totals rounded to the cent, then subtracted (the documented rounding).
        sum[field] = (cents(before(to)) - cents(before(from))) / 100;
      }
      return sum;
    };
    const cuts = [
      monthStart,
      monthStart + 3 * DAY + 15 * MINUTE,
      monthStart + 10 * DAY + 15 * MINUTE,
      monthStart + 22 * DAY + 15 * MINUTE,
      nextMonth,
    ];
    const parts: Sum[] = [];
    for (let i = 0; i + 1 < cuts.length; i++) {
      const result = await call('POST', '/v1.3/invoice/sum', { from: iso(cuts[i]!), to: iso(cuts[i + 1]!) });
      assert.deepEqual(result, expectedSum(cuts[i]!, cuts[i + 1]!), `[${iso(cuts[i]!)}, ${iso(cuts[i + 1]!)})`);
      parts.push(result);
    }
    const month = await call('POST', '/v1.3/invoice/sum', { from: iso(monthStart), to: iso(nextMonth) });
    assert.deepEqual(month, expectedSum(monthStart, nextMonth));
    for (const field of fields) {
      assert.equal(
        parts.reduce((total, part) => total + Math.round(part[field] * 100), 0),
        Math.round(month[field] * 100),
        field,
      );
    }
    for (const field of ['server', 'license', 'snapshot', 'backup', 'ddos_protection', 'floating_ip'] as const)
      assert.ok(month[field] > 0, field);

    // With no body, the sum covers the clock's current month: the new one, the second server only.
    const current = await call('POST', '/v1.3/invoice/sum', {});
    assert.deepEqual(current, expectedSum(nextMonth, monthOf(nextMonth + 32 * DAY)));
    assert.equal(current.license, cents(5 * WINDOWS_LICENCE.hr) / 100); // hours begun at 00:10 … 04:10

    // Everything since the account opened, plus the commit, is what the balance lost.
    const info = await call('GET', '/v1.3/account/info');
    const all = await call('POST', '/v1.3/invoice/sum', { from: '2000-01-01', to: iso(at + 1000) });
    const spent = fields.reduce((total, field) => total + Math.round(all[field] * 100), 0);
    assert.equal(Math.round(info.balance * 100), cents(credits - commitCharge - charged(at)));
    assert.ok(
      Math.abs(12_000 - cents(commitCharge) - spent - Math.round(info.balance * 100)) <= fields.length,
      'sums and balance agree within rounding',
    );
  });
});
