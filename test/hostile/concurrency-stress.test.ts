// Issue 21, class 1: many clients at once on the shared resources of a few accounts, with the
// sweeps running (the periodic sweeper every second, and the catch-up of each clock advance).
// Meant for PostgreSQL, where transactions really overlap and can deadlock; it runs on SQLite too.
// Each client draws a randomized mix of every kind of change — creates through v1.3 and v1, every
// server action, floating IP and VPC attach/detach, removes, snapshots, backup toggles, options,
// reverse DNS, operator stops and credits, clock advances — from one seeded generator. The run is
// bounded by count (CLIENTS × OPERATIONS_PER_CLIENT requests). No answer may be 5xx and the
// server may write no error-level log line (a deadlock, a failed sweep, a failed job).
// PROPERTY_SEED replays a run's choices (the interleaving is the scheduler's).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, startTestInstance, testDb, type HttpResult, type TestInstance } from '../support/instance.ts';
import { createAccount, type TestAccount } from '../support/accounts.ts';
import { orderServer } from '../support/servers.ts';
import { type CapturedLogs, captureLogs } from '../support/logs.ts';
import { sweeps } from '../../src/sweeps/sweeps.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const CLIENTS = 16;
const OPERATIONS_PER_CLIENT = 30;
const ACCOUNTS = 3;
/** An id no resource has. */
const missing = 2_000_000_000;
const SEED = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : Math.floor(Math.random() * 2 ** 31);

/** mulberry32: a small seeded generator, so a failing run's choices can be replayed. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** How many items fall under each key. */
function tally<T>(items: T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

/** What an account holds, as the clients have seen it; removed ids stay in `gone` to be named again. */
interface Holdings {
  account: TestAccount;
  servers: number[];
  fips: { id: string; ip: string }[];
  vpcs: string[];
  snapshots: number[];
  gone: number[];
}

interface Call {
  method: string;
  path: string;
  body?: unknown;
  form?: Record<string, string | number | boolean>;
  operator?: boolean;
  /** Updates the holdings from a successful answer. */
  seen?: (answer: HttpResult) => void;
}

describe(`concurrency stress on ${testDb}: ${CLIENTS} clients × ${OPERATIONS_PER_CLIENT} operations (seed ${SEED})`, () => {
  let nubis: TestInstance;
  let logs: CapturedLogs;
  const holdings: Holdings[] = [];
  const answers: { call: string; status: number; body: unknown }[] = [];

  before(async () => {
    console.log(`concurrency stress: PROPERTY_SEED=${SEED}`);
    nubis = await startTestInstance(
      { SWEEPS: 'true', SWEEP_INTERVAL_SECONDS: '1', SERVERS_LIMIT: '30' },
      { captureLog: true },
    );
    logs = captureLogs(nubis);
    for (let i = 0; i < ACCOUNTS; i++) {
      const account = await createAccount(nubis, { credit: 100_000 });
      const servers = [];
      for (let s = 0; s < 3; s++) servers.push((await orderServer(nubis, account.token, {})).id);
      const fips = [];
      for (let f = 0; f < 2; f++) {
        const fip = await nubis.request('POST', '/v1.3/floating_ip/create', {
          token: account.token,
          body: { region_id: 101, ip_version: 4 },
        });
        fips.push({ id: fip.body.uuid, ip: fip.body.ip_address });
      }
      const vpc = await nubis.request('POST', '/v1.3/vpc/create', {
        token: account.token,
        body: { name: 'stress', region_id: 101 },
      });
      holdings.push({ account, servers, fips, vpcs: [vpc.body.uuid], snapshots: [], gone: [] });
    }
    await nubis.advance(600);
  });
  after(async () => {
    await nubis?.close();
  });

  /** One randomly chosen call on one account's holdings. */
  function draw(random: () => number): { holding: Holdings; call: Call } {
    const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(random() * items.length)];
    const holding = pick(holdings)!;
    // Now and then name something already removed: the answer must be a 404, not a 5xx.
    const serverId = random() < 0.1 ? (pick(holding.gone) ?? missing) : (pick(holding.servers) ?? missing);
    const fip = pick(holding.fips) ?? { id: String(missing), ip: '192.0.2.1' };
    const vpc = pick(holding.vpcs) ?? String(missing);
    const snapshot = pick(holding.snapshots) ?? missing;
    const forget = <T>(items: T[], item: T) => {
      const at = items.indexOf(item);
      if (at >= 0) items.splice(at, 1);
    };
    const serverGone = () => {
      forget(holding.servers, serverId);
      holding.gone.push(serverId);
    };
    const calls: (() => Call)[] = [
      () => ({
        method: 'POST',
        path: '/v1.3/server/create',
        body: {
          hostname: 'stress.example.com',
          label: 'stress',
          region: 101,
          image: 1001,
          plan: 1,
          ...(random() < 0.3 ? { vpc } : {}),
          ...(random() < 0.3 ? { auto_backups: true } : {}),
        },
        seen: (a) => holding.servers.push(a.body.id),
      }),
      () => ({
        method: 'POST',
        path: '/v1/server/create',
        form: { hostname: 'legacy.example.com', OSID: 1001, DCID: 101, PLAN: 1, private_networking: random() < 0.5 },
        seen: (a) => holding.servers.push(Number(a.body.message)),
      }),
      () => ({ method: 'DELETE', path: `/v1.3/server/remove/${serverId}`, seen: serverGone }),
      () => ({ method: 'POST', path: '/v1/server/remove', form: { SUBID: serverId }, seen: serverGone }),
      () => ({
        method: 'PATCH',
        path: `/v1.3/server/${pick(['start', 'stop', 'reboot'])}`,
        body: { server_id: serverId },
      }),
      () => ({ method: 'POST', path: `/v1/server/${pick(['reboot', 'stop'])}`, form: { SUBID: serverId } }),
      () => ({
        method: 'POST',
        path: '/v1.3/server/resize',
        body: { server_id: serverId, plan_id: pick([1, 3, 4, 2]) },
      }),
      () => ({
        method: 'POST',
        path: '/v1.3/server/rebuild',
        body: { server_id: serverId, image_id: pick([1001, 1011]) },
      }),
      () => ({ method: 'POST', path: '/v1.3/server/reinstall', body: { server_id: serverId } }),
      () => ({ method: 'POST', path: '/v1.3/server/rescue', body: { server_id: serverId, enable: random() < 0.5 } }),
      () => ({
        method: 'POST',
        path: '/v1.3/snapshot/create',
        body: { server_id: serverId, name: 'stress' },
      }),
      () => ({ method: 'POST', path: '/v1/snapshot/create', form: { SUBID: serverId, label: 'legacy' } }),
      () => ({
        method: 'GET',
        path: '/v1.3/snapshot/list',
        seen: (a) => {
          holding.snapshots.splice(0, Infinity, ...a.body.snapshots.map((s: { id: number }) => s.id));
        },
      }),
      () => ({ method: 'PATCH', path: '/v1.3/snapshot/restore', body: { server_id: serverId, snapshot_id: snapshot } }),
      () => ({ method: 'POST', path: '/v1/snapshot/restore', form: { SUBID: serverId, SNAPSHOTID: snapshot } }),
      () => ({ method: 'PATCH', path: '/v1.3/backup/restore', body: { server_id: serverId, backup_id: snapshot } }),
      () => ({
        method: 'DELETE',
        path: `/v1.3/snapshot/remove/${snapshot}`,
        seen: () => forget(holding.snapshots, snapshot),
      }),
      () => ({ method: 'PATCH', path: `/v1.3/backup/${pick(['enable', 'disable'])}`, body: { server_id: serverId } }),
      () => ({
        method: 'PUT',
        path: `/v1.3/option/set/${serverId}`,
        body: { name: 'bw_overage_policy', value: pick(['throttle', 'charge', 'power_off', null]) },
      }),
      () => ({ method: 'PUT', path: '/v1.3/rdns/put', body: { server_id: serverId, rdns: 'host.example.com' } }),
      () => ({
        method: 'POST',
        path: '/v1.3/floating_ip/create',
        body: { region_id: 101, ip_version: pick([4, 6]) },
        seen: (a) => holding.fips.push({ id: a.body.uuid, ip: a.body.ip_address }),
      }),
      () => ({ method: 'POST', path: '/v1/reservedip/create', form: { DCID: 101 } }),
      () => ({
        method: 'PATCH',
        path: `/v1.3/floating_ip/${pick(['attach', 'detach'])}`,
        body: { server_id: serverId, ip_id: fip.id },
      }),
      () => ({
        method: 'POST',
        path: `/v1/reservedip/${pick(['attach', 'detach'])}`,
        form: { IP: fip.ip, SUBID: serverId },
      }),
      () => ({
        method: 'DELETE',
        path: `/v1.3/floating_ip/remove/${fip.id}`,
        seen: () => forget(holding.fips, fip),
      }),
      () => ({
        method: 'POST',
        path: '/v1.3/vpc/create',
        body: { name: 'stress', region_id: 101 },
        seen: (a) => holding.vpcs.push(a.body.uuid),
      }),
      () => ({
        method: 'PATCH',
        path: `/v1.3/vpc/${pick(['attach', 'detach'])}`,
        body: { server_id: serverId, vpc_id: vpc },
      }),
      () => ({ method: 'DELETE', path: `/v1.3/vpc/remove/${vpc}`, seen: () => forget(holding.vpcs, vpc) }),
      () => ({ method: 'POST', path: `/admin/servers/${serverId}/stop`, operator: true }),
      () => ({
        method: 'POST',
        path: `/admin/accounts/${holding.account.id}/credit`,
        body: { amount: 1, note: 'stress' },
        operator: true,
      }),
      () => ({
        method: 'POST',
        path: '/admin/clock/advance',
        body: { seconds: pick([5, 60, 600, 3600, 86_400])! },
        operator: true,
      }),
    ];
    return { holding, call: pick(calls)!() };
  }

  it('answers every request below 500 and logs no error while clients and sweeps contend', async () => {
    const started = performance.now();
    const root = generator(SEED);
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        // Each client has its own stream of choices, fixed by the seed whatever the interleaving.
        const random = generator(Math.floor(root() * 2 ** 31));
        for (let n = 0; n < OPERATIONS_PER_CLIENT; n++) {
          const { holding, call } = draw(random);
          const answer = await nubis.request(call.method, call.path, {
            token: call.operator ? ADMIN_TOKEN : holding.account.token,
            body: call.body,
            form: call.form,
          });
          answers.push({ call: `${call.method} ${call.path}`, status: answer.status, body: answer.body });
          if (answer.status < 300) call.seen?.(answer);
        }
      }),
    );
    // Let the sweeper finish a whole round over what the clients left behind: one that began after
    // the advance (counted, not timed: a loaded machine takes longer than any fixed wait).
    await nubis.advance(86_400);
    const roundsDone = async () => {
      const runs = (await nubis.running.ctx.metrics.sweepRuns.get()).values;
      return Math.min(
        ...sweeps.map((sweep) =>
          runs.filter((run) => run.labels.sweep === sweep.name).reduce((sum, run) => sum + run.value, 0),
        ),
      );
    };
    const roundsBefore = await roundsDone();
    while ((await roundsDone()) < roundsBefore + 2) await sleep(50);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);

    const failures = answers.filter((a) => a.status >= 500);
    const errors = logs.errors();
    const retried = logs.lines().filter((line) => line.msg === 'transaction conflicted; retrying');
    const deadlocks = errors.filter((line) => JSON.stringify(line).includes('deadlock detected'));
    console.log(
      `concurrency stress on ${testDb}: seed ${SEED}, ${answers.length} requests in ${seconds} s; statuses ${JSON.stringify(tally(answers, (a) => String(a.status)))}; ${failures.length} answers ≥ 500; ${errors.length} error lines, ${deadlocks.length} with "deadlock detected"; ${retried.length} transactions retried`,
    );
    assert.deepEqual(
      tally(failures, (f) => `${f.call.replace(/\/[0-9a-f-]{1,36}(?=\/|$)/g, '/:id')} ${f.status}`),
      {},
      `answers ≥ 500 (PROPERTY_SEED=${SEED})`,
    );
    assert.deepEqual(
      tally(errors, (line) => {
        const err = line.err as { message?: string; detail?: string } | undefined;
        return `${String(line.msg)}: ${err?.message ?? ''} ${err?.detail ?? ''}`.slice(0, 300);
      }),
      {},
      `error-level log lines (PROPERTY_SEED=${SEED})`,
    );
  });
});
