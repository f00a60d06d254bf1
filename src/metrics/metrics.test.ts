// /metrics after real traffic: scraped and parsed as the Prometheus text format, on the API
// port with METRICS_TOKEN and on a listener of its own with METRICS_PORT; refused otherwise.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestInstance, type TestInstance } from '../../test/support/instance.ts';
import { createAccount } from '../../test/support/accounts.ts';
import { deployServer, orderServer } from '../../test/support/servers.ts';

const METRICS_TOKEN = 'metrics-token-0123456789';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text format strictly enough to fail on anything malformed. */
function parse(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const helped = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line);
    if (meta) {
      if (meta[1] === 'TYPE') types.set(meta[2]!, meta[3]!);
      else helped.add(meta[2]!);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (-?[0-9.e+]+|NaN|\+Inf|-Inf)$/.exec(line);
    assert.ok(sample, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1]!] = pair[2]!;
    const name = sample[1]!;
    const family = name.replace(/_(bucket|sum|count)$/, '');
    assert.ok(types.has(name) || types.has(family), `sample ${name} has no TYPE line`);
    assert.ok(helped.has(name) || helped.has(family), `sample ${name} has no HELP line`);
    samples.push({ name, labels, value: Number(sample[3]) });
  }
  return { samples, types };
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, v]) => sample.labels[key] === v),
  );
  return found.length ? found.reduce((sum, sample) => sum + sample.value, 0) : undefined;
}

let nubis: TestInstance;
before(async () => {
  nubis = await startTestInstance({
    METRICS_TOKEN,
    RATE_LOGIN_PER_MINUTE: '2',
    SWEEPS: 'true',
    SWEEP_INTERVAL_SECONDS: '1',
    // The server left provisioning must still be provisioning when the metrics are read, after a
    // wait for the sweeper that can take a loaded machine close to a minute (default: 60 s).
    SIM_PROVISION_SECONDS: '600',
  });
});
after(async () => {
  await nubis.close();
});

async function scrape(): Promise<Sample[]> {
  const answer = await fetch(`${nubis.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(answer.status, 200);
  assert.match(answer.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parse(await answer.text()).samples;
}

describe('/metrics', () => {
  test('counts requests by route and status, servers by state, accounts, refusals, sweeps and the pool', async () => {
    const account = await createAccount(nubis);
    const unactivated = await createAccount(nubis, { activate: false });
    await deployServer(nubis, account.token);
    await orderServer(nubis, account.token, {});
    for (let i = 0; i < 3; i++) await nubis.request('GET', '/v1.3/server/list', { token: account.token });
    assert.equal((await nubis.request('GET', '/v1.3/server/info/999999', { token: account.token })).status, 404);
    // Three logins against a budget of two: one refusal.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push(
        (await nubis.request('POST', '/v1.3/account/login', { body: { email: unactivated.email, password: 'x' } }))
          .status,
      );
    assert.equal(statuses.filter((status) => status === 429).length, 1, statuses.join());
    await nubis.request('GET', '/no/such/path/123');
    // Wait (bounded, 60 s: a loaded machine can take that long) for the sweeper to finish a round of each sweep.
    let samples = await scrape();
    for (let i = 0; i < 600 && (value(samples, 'nubis_sweep_runs_total', { sweep: 'daily backups' }) ?? 0) < 1; i++) {
      await sleep(100);
      samples = await scrape();
    }

    const list = { method: 'GET', route: '/v1.3/server/list', status: '200' };
    assert.equal(value(samples, 'nubis_http_request_duration_seconds_count', list), 3);
    assert.equal(value(samples, 'nubis_http_request_duration_seconds_bucket', { ...list, le: '+Inf' }), 3);
    assert.ok((value(samples, 'nubis_http_request_duration_seconds_sum', list) ?? -1) >= 0);
    assert.equal(
      value(samples, 'nubis_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/v1.3/server/info/:server_id',
        status: '404',
      }),
      1,
    );
    assert.equal(
      value(samples, 'nubis_http_request_duration_seconds_count', {
        route: '/v1.3/account/login',
        status: '429',
      }),
      1,
    );
    assert.equal(value(samples, 'nubis_http_request_duration_seconds_count', { route: 'unmatched', status: '404' }), 1);
    assert.equal(value(samples, 'nubis_rate_limit_refusals_total', { limit: 'login' }), 1);
    assert.equal(value(samples, 'nubis_servers', { state: 'running' }), 1);
    assert.equal(value(samples, 'nubis_servers', { state: 'provisioning' }), 1);
    assert.equal(value(samples, 'nubis_accounts', { standing: 'active' }), 1);
    assert.equal(value(samples, 'nubis_accounts', { standing: 'not_activated' }), 1);
    assert.equal(value(samples, 'nubis_accounts', { standing: 'blocked' }), 0);
    assert.equal(value(samples, 'nubis_mail_outbox', { state: 'kept' }), 2);
    for (const sweep of ['out of funds', 'mail delivery', 'daily backups']) {
      assert.ok((value(samples, 'nubis_sweep_runs_total', { sweep, outcome: 'ok' }) ?? 0) >= 1, sweep);
      assert.ok((value(samples, 'nubis_sweep_duration_seconds_count', { sweep }) ?? 0) >= 1, sweep);
    }
    // The first sweep round took the daily backup of the running server... or a later one will: work is counted.
    assert.notEqual(value(samples, 'nubis_sweep_work_total', { sweep: 'daily backups' }), undefined);
    const pool = value(samples, 'nubis_db_pool_connections', { state: 'max' });
    assert.equal(pool, nubis.config.databaseUrl ? nubis.config.dbPoolSize : 1);
  });

  test('needs METRICS_TOKEN on the API port', async () => {
    assert.equal((await fetch(`${nubis.url}/metrics`)).status, 401);
    assert.equal(
      (await fetch(`${nubis.url}/metrics`, { headers: { authorization: 'Bearer not-the-metrics-token' } })).status,
      401,
    );
  });

  test('without METRICS_TOKEN or METRICS_PORT it is off; METRICS_PORT serves it on a listener of its own', async () => {
    const off = await startTestInstance();
    try {
      assert.equal((await fetch(`${off.url}/metrics`)).status, 403);
    } finally {
      await off.close();
    }
    const own = await startTestInstance({ METRICS_PORT: '0', METRICS_HOST: '127.0.0.1' });
    try {
      const metricsUrl = own.running.metricsUrl;
      assert.ok(metricsUrl);
      await own.request('GET', '/v1.3/region/list');
      const answer = await fetch(`${metricsUrl}/metrics`);
      assert.equal(answer.status, 200);
      const samples = parse(await answer.text()).samples;
      assert.equal(
        value(samples, 'nubis_http_request_duration_seconds_count', { route: '/v1.3/region/list', status: '200' }),
        1,
      );
      assert.equal((await fetch(`${metricsUrl}/other`)).status, 404);
      assert.equal((await fetch(`${own.url}/metrics`)).status, 404);
    } finally {
      await own.close();
    }
  });
});
