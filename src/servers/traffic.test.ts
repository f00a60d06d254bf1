// Traffic as a meter, on the simulated driver: a running server's usage grows with time, a
// stopped one's does not (its NICs move nothing), what was counted stays counted through a stop
// and a start, and the month's usage starts again at the UTC month's start. The meter's own
// arithmetic (deltas across boots and counter resets, shares of months) is checked directly.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, serverInfo, SETTLE_SECONDS } from '../../test/support/servers.ts';
import { byMonth, deltaOf, monthShare } from '../compute/traffic-meter.ts';
import { monthBounds } from '../billing/metering.ts';

const day = 86_400;

let nubis: TestInstance;
let alice: TestAccount;

before(async () => {
  nubis = await startTestInstance();
  alice = await createAccount(nubis, { credit: 1000 });
});

after(() => nubis.close());

const usage = async (id: number) => (await serverInfo(nubis, alice.token, id)).bandwidth.usage as number;
const clockNow = async () => Date.parse((await nubis.admin('GET', '/admin/clock')).body.now);

async function power(id: number, command: 'stop' | 'start') {
  const answer = await nubis.request('PATCH', `/v1.3/server/${command}`, {
    token: alice.token,
    body: { server_id: id },
  });
  assert.equal(answer.status, 202, JSON.stringify(answer.body));
  await nubis.advance(SETTLE_SECONDS);
}

describe('the traffic meter (simulated driver)', () => {
  test('a running server moves traffic, a stopped one none; a stop and start keep what was counted', async () => {
    // Far from a month's start, so the days below stay in one month.
    const now = await clockNow();
    const { end } = monthBounds(now);
    if (end - now < 5 * day * 1000) await nubis.advance(Math.ceil((end - now) / 1000) + day);
    const s = await deployServer(nubis, alice.token);
    await nubis.advance(day);
    const running = await usage(s.id);
    assert.ok(running > 0, `a day of running moved ${running} GB`);

    await power(s.id, 'stop');
    const stopped = await usage(s.id);
    assert.ok(stopped >= running, `${stopped} GB after the stop, ${running} GB before`);
    await nubis.advance(2 * day);
    assert.equal(await usage(s.id), stopped, 'two days stopped moved nothing');

    await power(s.id, 'start');
    assert.ok((await usage(s.id)) >= stopped, 'a start lowers nothing');
    await nubis.advance(day);
    const again = await usage(s.id);
    // One day again (± the rounding to a hundredth): as much as the first day.
    assert.ok(Math.abs(again - stopped - running) <= 0.05 + running * 0.02, `${again} GB after a day more`);
  });

  test("a list shows each server's own stored usage, as its server/info does (one statement for them all)", async () => {
    // Its own account: three servers of different ages (each moves its own amount), far from a month's start.
    const bob = await createAccount(nubis, { credit: 1000 });
    const now = await clockNow();
    const { end } = monthBounds(now);
    if (end - now < 5 * day * 1000) await nubis.advance(Math.ceil((end - now) / 1000) + day);
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await deployServer(nubis, bob.token)).id);
      await nubis.advance(day / 2);
    }
    // Stopped: what they moved is what the meter stored (a stopped server's NICs move nothing more).
    for (const id of ids) {
      const answer = await nubis.request('PATCH', '/v1.3/server/stop', { token: bob.token, body: { server_id: id } });
      assert.equal(answer.status, 202, JSON.stringify(answer.body));
    }
    await nubis.advance(SETTLE_SECONDS);
    const listed = await nubis.request('GET', '/v1.3/server/list', { token: bob.token });
    assert.equal(listed.status, 200);
    const byId = new Map<number, number>(
      (listed.body.servers as { id: number; bandwidth: { usage: number } }[]).map((s) => [s.id, s.bandwidth.usage]),
    );
    const usages = ids.map((id) => byId.get(id));
    for (const [index, id] of ids.entries())
      assert.equal(usages[index], (await serverInfo(nubis, bob.token, id)).bandwidth.usage, `server ${id}`);
    assert.ok(
      usages.every((usage) => usage! > 0),
      `usages ${usages.join(', ')}`,
    );
  });

  test("the month's usage starts again at the UTC month's start", async () => {
    const s = await deployServer(nubis, alice.token);
    const now = await clockNow();
    const { end } = monthBounds(now);
    // To an hour before the month ends (at least a day on), then two hours on: one hour of this month.
    const toLastHour = Math.max(day, Math.floor((end - now) / 1000) - 3600);
    await nubis.advance(toLastHour);
    const before = await usage(s.id);
    const beforeEnd = monthBounds(await clockNow()).end;
    await nubis.advance(Math.ceil((beforeEnd - (await clockNow())) / 1000) + 3600);
    const afterStart = await usage(s.id);
    assert.ok(before > 0 && afterStart > 0, `${before} GB before the month's start, ${afterStart} GB after`);
    // An hour of a server that ran a day or more before it.
    assert.ok(afterStart * 20 < before, `${afterStart} GB an hour into the month, ${before} GB before it`);
  });
});

describe('the meter arithmetic', () => {
  const last = { epoch: 'boot 1', counter: 1000, read_at: 10_000 };

  test('a delta of one boot, a counter reset, a new boot, an older reading', () => {
    assert.deepEqual(deltaOf(last, { epoch: 'boot 1', bytes: 1500, at: 20_000, since: null }), {
      bytes: 500,
      from: 10_000,
    });
    assert.equal(deltaOf(last, { epoch: 'boot 1', bytes: 1000, at: 20_000, since: null }), null);
    // The engine reset the counter within the boot: all it shows now is new.
    assert.deepEqual(deltaOf(last, { epoch: 'boot 1', bytes: 300, at: 20_000, since: null }), {
      bytes: 300,
      from: 10_000,
    });
    // A new boot counts from its start, or from the last reading when its start is unknown.
    assert.deepEqual(deltaOf(last, { epoch: 'boot 2', bytes: 700, at: 20_000, since: 15_000 }), {
      bytes: 700,
      from: 15_000,
    });
    assert.deepEqual(deltaOf(last, { epoch: 'boot 2', bytes: 700, at: 20_000, since: null }), {
      bytes: 700,
      from: 10_000,
    });
    assert.deepEqual(deltaOf(undefined, { epoch: 'boot 1', bytes: 700, at: 20_000, since: null }), {
      bytes: 700,
      from: 20_000,
    });
    assert.equal(deltaOf(last, { epoch: 'boot 2', bytes: 700, at: 5_000, since: null }), null);
  });

  test('bytes over a month boundary are shared by time, and add up', () => {
    const start = Date.UTC(2026, 10, 1);
    const shares = byMonth(1001, start - 3_600_000, start + 3 * 3_600_000);
    assert.deepEqual(
      shares.map((s) => s.monthStart),
      [Date.UTC(2026, 9, 1), start],
    );
    assert.equal(shares[0]!.bytes, 250);
    assert.equal(shares[0]!.bytes + shares[1]!.bytes, 1001);
    assert.deepEqual(byMonth(5, start + 10, start + 10), [{ monthStart: start, bytes: 5 }]);
  });

  test("a month's share read alone is what the shares give that month, over spans of up to a year", () => {
    // Spans drawn from a fixed seed (a linear congruential sequence): reproducible, and each run the same.
    let seed = 38;
    const next = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % below;
    };
    const base = Date.UTC(2026, 0, 1);
    for (let drawn = 0; drawn < 500; drawn++) {
      const from = base + next(400) * 86_400_000 + next(86_400_000);
      const to = from + (drawn % 10 === 0 ? 0 : next(365) * 86_400_000 + next(86_400_000));
      const bytes = next(2_000_000_000);
      const shares = byMonth(bytes, from, to);
      for (const month of [...shares.map((share) => share.monthStart), monthBounds(from).start - 1, to + 1]) {
        const start = monthBounds(month).start;
        const expected = shares
          .filter((share) => share.monthStart === start)
          .reduce((sum, share) => sum + share.bytes, 0);
        assert.equal(
          monthShare(bytes, from, to, start),
          expected,
          `${bytes} bytes from ${from} to ${to}, month ${start}`,
        );
      }
    }
  });
});

describe('which direction is metered', () => {
  /** A day's usage of a running server on a Nubis where every server is flooded with 100 GB a day. */
  async function floodedDay(env: Record<string, string>): Promise<number> {
    const flooded = await startTestInstance({ SIM_INBOUND_GB_PER_DAY: '100', SIM_BANDWIDTH_GB_PER_DAY: '2', ...env });
    try {
      const owner = await createAccount(flooded, { credit: 1000 });
      const now = Date.parse((await flooded.admin('GET', '/admin/clock')).body.now);
      const { end } = monthBounds(now);
      if (end - now < 3 * day * 1000) await flooded.advance(Math.ceil((end - now) / 1000) + day);
      const s = await deployServer(flooded, owner.token);
      await flooded.advance(day);
      return (await serverInfo(flooded, owner.token, s.id)).bandwidth.usage as number;
    } finally {
      await flooded.close();
    }
  }

  test('by default only what a server sends counts: a flood from outside does not use its allowance', async () => {
    const usage = await floodedDay({});
    // It sends between 1 and 3 GB a day (half to one and a half times 2 GB); the 100 GB received do not count.
    assert.ok(usage > 0 && usage <= 3.05, `${usage} GB after a flooded day`);
  });

  test('TRAFFIC_METERED=both counts what it receives too', async () => {
    const usage = await floodedDay({ TRAFFIC_METERED: 'both' });
    assert.ok(usage >= 100, `${usage} GB after a flooded day`);
  });

  test('TRAFFIC_METERED takes outbound or both only', async () => {
    await assert.rejects(startTestInstance({ TRAFFIC_METERED: 'inbound' }), /TRAFFIC_METERED/);
  });
});
