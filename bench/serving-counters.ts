// Preloaded into a serving process by bench/tail.ts (`node --import ./bench/serving-counters.ts …`):
// what a request may wait for, counted over one measured window — event-loop delay, GC pauses, the
// pg pool's waits for a connection and its queries' times (wait and statement), and Redis round
// trips, and the bytes V8 allocated (deterministic where times are not: bench/list.ts prints it a
// list). SIGUSR2 starts a window; SIGUSR1 writes one `counters …` line on stderr. It wraps pg-pool's
// and ioredis's methods in this process only: a bench's probe, never part of a served instance.

import { createRequire } from 'node:module';
import { monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

const require = createRequire(`${process.cwd()}/package.json`);
const loopDelay = monitorEventLoopDelay({ resolution: 1 });
loopDelay.enable();

let gc = { count: 0, ms: 0, longest: 0 };
let waits: number[] = [];
let queries: number[] = [];
let redis: number[] = [];
let mostWaiting = 0;
let allocatedAtStart = getHeapStatistics().total_allocated_bytes;

new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gc.count++;
    gc.ms += entry.duration;
    gc.longest = Math.max(gc.longest, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

type Callback = (error: unknown, client: unknown, release: unknown) => void;
interface PoolLike {
  waitingCount?: number;
  connect(callback?: Callback): Promise<unknown> | undefined;
  query(...args: unknown[]): unknown;
}
try {
  const Pool = require('pg-pool') as { prototype: PoolLike };
  const connect = Pool.prototype.connect;
  Pool.prototype.connect = function (this: PoolLike, callback?: Callback) {
    const started = performance.now();
    mostWaiting = Math.max(mostWaiting, this.waitingCount ?? 0);
    if (typeof callback === 'function')
      return connect.call(this, (error, client, release) => {
        waits.push(performance.now() - started);
        callback(error, client, release);
      });
    return connect.call(this)!.then((client) => {
      waits.push(performance.now() - started);
      return client;
    });
  };
  const query = Pool.prototype.query;
  Pool.prototype.query = function (this: PoolLike, ...args: unknown[]) {
    const started = performance.now();
    const result = query.apply(this, args);
    if (result instanceof Promise)
      result.then(
        () => queries.push(performance.now() - started),
        () => {},
      );
    return result;
  };
} catch {
  // No pg here: nothing to count.
}
interface RedisLike {
  sendCommand(command: { promise?: Promise<unknown> }, ...rest: unknown[]): unknown;
}
try {
  const Redis = (require('ioredis') as { default: { prototype: RedisLike } }).default;
  const send = Redis.prototype.sendCommand;
  Redis.prototype.sendCommand = function (this: RedisLike, command, ...rest) {
    const started = performance.now();
    const result = send.call(this, command, ...rest);
    command.promise?.then(
      () => redis.push(performance.now() - started),
      () => {},
    );
    return result;
  };
} catch {
  // The floor has no Redis.
}

function quantile(values: number[], q: number): string {
  if (!values.length) return '0';
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!.toFixed(2);
}

process.on('SIGUSR2', () => {
  loopDelay.reset();
  gc = { count: 0, ms: 0, longest: 0 };
  waits = [];
  queries = [];
  redis = [];
  mostWaiting = 0;
  allocatedAtStart = getHeapStatistics().total_allocated_bytes;
});
process.on('SIGUSR1', () => {
  const ms = (ns: number) => (ns / 1e6).toFixed(2);
  process.stderr.write(
    `counters loop delay p50 ${ms(loopDelay.percentile(50))} p99 ${ms(loopDelay.percentile(99))} max ${ms(loopDelay.max)} ms` +
      ` | gc ${gc.count}× ${gc.ms.toFixed(1)} ms, longest ${gc.longest.toFixed(2)}` +
      ` | pool waits ${waits.length}: p50 ${quantile(waits, 0.5)} p99 ${quantile(waits, 0.99)}, most waiting ${mostWaiting}` +
      ` | queries p50 ${quantile(queries, 0.5)} p99 ${quantile(queries, 0.99)}` +
      ` | redis ${redis.length}: p50 ${quantile(redis, 0.5)} p99 ${quantile(redis, 0.99)} max ${quantile(redis, 1)}` +
      ` | allocated ${getHeapStatistics().total_allocated_bytes - allocatedAtStart} bytes\n`,
  );
});
