// A server's usage graphs (issue 25): the simulated driver's derived series over HTTP, and the
// samples a real engine's readings leave (rates, hourly averages, retention), recorded through
// the same function reconciliation calls.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount, type TestAccount } from '../../test/support/accounts.ts';
import { deployServer, orderServer } from '../../test/support/servers.ts';
import type { Actor, Platform } from '../platform/context.ts';
import { recordUsage, serverMetrics, type UsageReading } from './server-metric.service.ts';

let nubis: TestInstance;
let alice: TestAccount;

before(async () => {
  nubis = await startTestInstance();
  alice = await createAccount(nubis);
});
after(() => nubis.close());

async function metrics(token: string, ref: string | number, period?: string) {
  return nubis.request('GET', `/v1.3/server/metrics/${ref}${period ? `?period=${period}` : ''}`, { token });
}

describe('server metrics, simulated driver', () => {
  test('each period answers its steps since the server was made, the same numbers each time, within the plan', async () => {
    const created = await deployServer(nubis, alice.token);
    const plans = await nubis.request('GET', '/v1.3/plan/list');
    const plan = plans.body.plans[String(created.info.plan_id)];
    // Young: the hour's graph starts at the creation, not before.
    const young = await metrics(alice.token, created.uuid);
    assert.equal(young.status, 200, JSON.stringify(young.body));
    assert.ok(young.body.points.length <= 11, `${young.body.points.length} points ten minutes after creation`);
    await nubis.advance(31 * 86_400);
    for (const [period, step, count] of [
      ['hour', 60, 60],
      ['day', 600, 144],
      ['month', 3600, 720],
    ] as const) {
      const first = await metrics(alice.token, created.id, period);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(first.body.period, period);
      assert.equal(first.body.step, step);
      assert.equal(first.body.source, 'simulated');
      assert.ok(Math.abs(first.body.points.length - count) <= 1, `${period}: ${first.body.points.length} points`);
      const times = first.body.points.map((p: { time: string }) => Date.parse(p.time));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
      );
      for (const point of first.body.points) {
        assert.ok(point.cpu >= 0 && point.cpu <= 100, `cpu ${point.cpu}`);
        assert.ok(point.memory_mb > 0 && point.memory_mb <= plan.memory_mb, `memory ${point.memory_mb}`);
        assert.ok(point.disk_mb > 0 && point.disk_mb <= plan.disk_gb * 1024, `disk ${point.disk_mb}`);
        assert.ok(point.rx_bps >= 0 && point.tx_bps >= 0);
      }
      // Deterministic: the same window answers the same numbers.
      const again = await metrics(alice.token, created.uuid, period);
      assert.deepEqual(again.body.points, first.body.points);
    }
    // Another server has its own series.
    const other = await deployServer(nubis, alice.token, { hostname: 'web-2.example.com', label: 'web 2' });
    await nubis.advance(3600);
    const mine = (await metrics(alice.token, created.uuid)).body.points.map((p: { cpu: number }) => p.cpu);
    const theirs = (await metrics(alice.token, other.uuid)).body.points.map((p: { cpu: number }) => p.cpu);
    assert.notDeepEqual(mine, theirs);
  });

  test('a bad period is named, another account sees nothing, a token is needed', async () => {
    const created = await orderServer(nubis, alice.token, {});
    const bad = await metrics(alice.token, created.uuid, 'week');
    assert.equal(bad.status, 400);
    assert.match(JSON.stringify(bad.body), /period/);
    const bob = await createAccount(nubis);
    assert.equal((await metrics(bob.token, created.uuid)).status, 404);
    assert.equal((await nubis.request('GET', `/v1.3/server/metrics/${created.uuid}`)).status, 401);
  });
});

describe('server metrics, recorded from an engine', () => {
  // Found by a fleet-sized read elsewhere (the overage sweep): the engine reports every instance
  // it runs, and the plans of all of them were asked for in one statement, which fails past the
  // values a statement may bind (SQLite 32,766; PostgreSQL 65,535).
  test('a report of 70,000 instances, most of them unknown here, still records the known one', async () => {
    const created = await deployServer(nubis, alice.token, { hostname: 'fleet.example.com', label: 'fleet' });
    const ctx = nubis.running.ctx;
    const usage: UsageReading = { cpuNs: 1e9, memoryBytes: 1_048_576, diskBytes: 1_048_576, rxBytes: 10, txBytes: 5 };
    const seen = new Map<string, { usage: UsageReading }>(
      Array.from({ length: 70_000 }, () => [randomUUID(), { usage }]),
    );
    seen.set(created.uuid, { usage });
    const now = ctx.clock.now();
    assert.equal(await recordUsage(ctx, seen, now, now), 1);
  });

  test('readings become rates, restarts start again, hours are averaged, old ones go', async () => {
    const created = await deployServer(nubis, alice.token, { hostname: 'db-1.example.com', label: 'db 1' });
    const ctx = nubis.running.ctx;
    // The same platform, as a real driver's would be: metrics are then read from the samples.
    const engineCtx = { ...ctx, compute: { ...ctx.compute, engine: {} } } as unknown as Platform;
    const actor = { accountId: alice.id } as Actor;
    const plans = await nubis.request('GET', '/v1.3/plan/list');
    const vcpus = plans.body.plans[String(created.info.plan_id)].vcpus as number;

    const hour = 3_600_000;
    const start = Math.ceil((ctx.clock.now() + hour) / hour) * hour; // the start of a coming hour
    const reading = (cpuSeconds: number, rx: number): UsageReading => ({
      cpuNs: cpuSeconds * 1e9,
      memoryBytes: 512 * 1_048_576,
      diskBytes: 2048 * 1_048_576,
      rxBytes: rx,
      txBytes: rx / 2,
    });
    const record = (at: number, usage: UsageReading) =>
      recordUsage(engineCtx, new Map([[created.uuid, { usage }]]), at, at);
    // Every minute of an hour: half a vCPU's worth of CPU, 1,000 bytes/s in.
    for (let minute = 0; minute <= 60; minute++)
      await record(start + minute * 60_000, reading(minute * 30 * vcpus, minute * 60_000));
    // A restart: the counters begin again; no rate is reckoned across it.
    await record(start + 61 * 60_000, reading(1, 10));
    await nubis.advance((start + 62 * 60_000 - ctx.clock.now()) / 1000);

    const hourGraph = await serverMetrics(engineCtx, actor, created.uuid, 'hour');
    assert.equal(hourGraph.source, 'engine');
    const withRates = hourGraph.points.filter((p) => p.cpu !== null);
    assert.ok(withRates.length >= 58, `${withRates.length} points with rates`);
    for (const point of withRates) {
      assert.equal(point.cpu, 50);
      assert.equal(point.rx_bps, 1000);
      assert.equal(point.tx_bps, 500);
      assert.equal(point.memory_mb, 512);
      assert.equal(point.disk_mb, 2048);
    }
    // The restart's minute: gauges, no rates.
    const restart = hourGraph.points.at(-1)!;
    assert.equal(restart.at, start + 61 * 60_000);
    assert.deepEqual([restart.cpu, restart.rx_bps, restart.memory_mb], [null, null, 512]);

    // The month's graph has the finished hour's average, and the hour under way from its samples.
    const month = await serverMetrics(engineCtx, actor, created.uuid, 'month');
    assert.deepEqual(
      month.points.map((p) => [p.at, p.cpu, p.rx_bps]),
      [
        [start, 50, 1000],
        [start + hour, 50, 1000],
      ],
    );

    // A day and more later, the samples are gone and the hour stays.
    const later = start + 28 * hour;
    await record(later, reading(5, 10));
    const rows = await ctx.db
      .selectFrom('server_metric_samples')
      .select(['resolution', 'at'])
      .where('server_uuid', '=', created.uuid)
      .orderBy('at')
      .execute();
    assert.deepEqual(
      rows.map((row) => [row.resolution, Number(row.at)]),
      [
        ['hour', start],
        ['hour', start + hour],
        ['sample', later],
      ],
    );
  });
});
