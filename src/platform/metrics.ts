// The process's metrics (prom-client), one registry per running server so several servers in
// one process (the tests) never mix their numbers. The HTTP layer observes requests, the
// sweeper its rounds, the rate limiter its refusals; gauges that describe stored state
// (servers by state, accounts, the mail queue, the database pool) are read when scraped.

// The four classes from their own modules: the package's index also loads its push gateway
// (node:http, node:https, node:zlib), its default metrics (node:v8, node:perf_hooks) and its
// cluster aggregator (node:cluster), ~60 ms of CPU at every start for parts Nubis never uses.
import Counter from 'prom-client/lib/counter.js';
import Gauge from 'prom-client/lib/gauge.js';
import Histogram from 'prom-client/lib/histogram.js';
import Registry from 'prom-client/lib/registry.js';

export interface Metrics {
  registry: Registry;
  /** Seconds per request by method, route pattern and status; its `_count` is the request count. */
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  sweepRuns: Counter<'sweep' | 'outcome'>;
  sweepWork: Counter<'sweep'>;
  sweepDuration: Histogram<'sweep'>;
  rateLimitRefusals: Counter<'limit'>;
  /** Transactions PostgreSQL rolled back as a serialization failure or deadlock (src/db/transaction.ts). */
  transactionConflicts: Counter<'code' | 'outcome'>;
  /** Adds a gauge whose values are read at scrape time (stored state, pool counters). */
  addCollected(name: string, help: string, labelNames: string[], read: () => Promise<CollectedValue[]>): void;
}

export interface CollectedValue {
  labels: Record<string, string>;
  value: number;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const metrics: Metrics = {
    registry,
    httpDuration: new Histogram({
      name: 'nubis_http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status: latency in seconds (_count is the number of requests)',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    sweepRuns: new Counter({
      name: 'nubis_sweep_runs_total',
      help: 'Sweep runs by sweep and outcome (ok or failed)',
      labelNames: ['sweep', 'outcome'],
      registers: [registry],
    }),
    sweepWork: new Counter({
      name: 'nubis_sweep_work_total',
      help: 'Things the sweeps did: mails delivered, backups taken or expired, accounts suspended or lifted, servers stopped',
      labelNames: ['sweep'],
      registers: [registry],
    }),
    sweepDuration: new Histogram({
      name: 'nubis_sweep_duration_seconds',
      help: 'Seconds a sweep run took',
      labelNames: ['sweep'],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30],
      registers: [registry],
    }),
    rateLimitRefusals: new Counter({
      name: 'nubis_rate_limit_refusals_total',
      help: 'Requests refused with 429 by a rate limit, by budget',
      labelNames: ['limit'],
      registers: [registry],
    }),
    transactionConflicts: new Counter({
      name: 'nubis_transaction_conflicts_total',
      help: 'Transactions rolled back by a serialization failure (40001) or deadlock (40P01), by code and outcome (retried, or gave_up after the last attempt)',
      labelNames: ['code', 'outcome'],
      registers: [registry],
    }),
    addCollected(name, help, labelNames, read) {
      new Gauge({
        name,
        help,
        labelNames,
        registers: [registry],
        async collect() {
          this.reset();
          for (const { labels, value } of await read()) this.set(labels, value);
        },
      });
    },
  };
  return metrics;
}

/** What a sweep's result says it did: a count, or the sum of a report's counts and lists. */
export function workOf(result: unknown): number {
  if (typeof result === 'number') return result;
  if (Array.isArray(result)) return result.length;
  if (result && typeof result === 'object')
    return Object.values(result).reduce<number>((sum, value) => sum + workOf(value), 0);
  return 0;
}
