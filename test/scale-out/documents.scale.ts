// Invoice documents on two instances (issue 24): when the month turns, both instances' sweepers
// and two `nubis sweep --once` race to issue the month's documents; each account gets exactly
// one, and the numbers run 1 to N without a gap (one counter row, incremented in the
// transaction that inserts the document, so a lost race rolls its number back).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ADMIN_TOKEN,
  adminQuery,
  call,
  deployment,
  fundedAccount,
  type Deployment,
  type Instance,
} from './instances.ts';

let deploy: Deployment;
let a: Instance;
let b: Instance;

before(async () => {
  deploy = await deployment({ env: { CLOCK: 'virtual', SWEEPS: 'true', SWEEP_INTERVAL_SECONDS: '1' } });
  [a, b] = await Promise.all([deploy.start(), deploy.start()]);
});
after(async () => {
  await deploy.close();
});

describe('invoice documents on two instances', () => {
  test('the month turns while every sweeper runs: one document per account, numbered 1 to N', async () => {
    const accounts = await Promise.all(
      Array.from({ length: 8 }, (_, i) => fundedAccount(i % 2 ? a.url : b.url, 10 + i)),
    );
    // The clock jumps past the first of the next month without a catch-up (as after downtime):
    // every sweeper sees the new month at its next round.
    const now = Date.parse((await call(a.url, 'GET', '/admin/clock', { token: ADMIN_TOKEN })).body.now);
    const date = new Date(now);
    const target = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1, 0, 5);
    const stored = await adminQuery(
      `select value from settings where key = 'clock_offset_ms'`,
      deploy.env.DATABASE_URL,
    );
    const offset = Number(stored.rows[0]?.value ?? 0) + (target - now);
    await adminQuery(
      `insert into settings (key, value) values ('clock_offset_ms', '${offset}')
       on conflict (key) do update set value = excluded.value`,
      deploy.env.DATABASE_URL,
    );
    await Promise.all([deploy.sweepOnce(), deploy.sweepOnce()]);

    const documentsOf = async (id: number, instance: Instance) =>
      (await call(instance.url, 'GET', `/admin/accounts/${id}/documents`, { token: ADMIN_TOKEN })).body.documents as {
        number: number;
      }[];
    let lists: { number: number }[][] = [];
    for (let attempt = 0; attempt < 60; attempt++) {
      lists = await Promise.all(accounts.map((account, i) => documentsOf(account.id, i % 2 ? b : a)));
      if (lists.every((list) => list.length > 0)) break;
      await sleep(500);
    }
    assert.deepEqual(
      lists.map((list) => list.length),
      accounts.map(() => 1),
      'one document per account',
    );
    const numbers = lists
      .flat()
      .map((d) => d.number)
      .sort((x, y) => x - y);
    assert.deepEqual(
      numbers,
      accounts.map((_, i) => i + 1),
    );
    const counter = await adminQuery(
      `select value from settings where key = 'invoice_document_number'`,
      deploy.env.DATABASE_URL,
    );
    assert.equal(Number(counter.rows[0].value), accounts.length, 'no number was taken and lost');
  });
});
