// The compute job runner (drivers with an engine): claims due jobs (FOR UPDATE SKIP LOCKED on
// PostgreSQL, so any number of instances share the queue; the queries: job.repository.ts), has the engine converge a server's
// machine to its spec or produce an artifact after the intent has committed, settles the server
// from the engine's report, and retries a failure with back-off. Beside it, reconciliation: the
// engine's view of each idle machine its events said changed (of every one at a full read) is
// compared with its spec (power: the engine's wins; limits and NICs: the spec's is put back); and
// the usage reading: the running machines' counters feed the traffic meter and the graphs.

import type { Tx } from '../db/database.ts';
import {
  imageCompletedByEngine,
  serverDriftCorrected,
  serverPowerChanged,
  serverSettledByEngine,
} from '../events/resource-events.ts';
import type { Platform } from '../platform/context.ts';
import { provisioningTransition } from './power-state.ts';
import { parseConditions } from './machine-conditions.ts';
import type { ComputeJobRow } from './compute-job.table.ts';
import {
  type Artifact,
  type ArtifactReport,
  type ConvergeReport,
  convergeJob,
  copyingArtifacts,
  type Engine,
  type EngineObservation,
  type EngineReading,
  type HostJob,
  hostJobs,
  MachineLost,
} from './compute-driver.ts';
import { desiredMachine, desiredMachines } from './desired-machine.ts';
import {
  createFailed,
  engineReachable,
  engineUnreachable,
  hostLostReport,
  machineMissing,
  missingReport,
  reportStatus,
  seenReport,
  statusChange,
} from './machine-status.ts';
import { queueConverge } from './job-queue.ts';
import { egressPolicy, enforceEgress } from './egress-policy.ts';
import { collectScriptReports } from './script-reports.ts';
import { recordUsage } from '../server-metrics/server-metric.service.ts';
import { transaction } from '../db/transaction.ts';
import { artifactTransitions } from './machine-intents.ts';
import { recordTraffic } from './traffic-meter.ts';
import { copyFailed } from '../snapshots/copy-failure.ts';
import { jobRepository } from './job.repository.ts';
import { artifactOrNull, parseArtifact } from './artifact-payload.ts';
import { noteOrphanMachines, unownedMachines } from './orphan-machines.ts';
import { keysetPages } from '../db/keyset.ts';
import {
  type HostView,
  hostView,
  hostWorkDone,
  hostWorkGaveUp,
  performHostJob,
  refreshEngineHosts,
} from './host-work.ts';

/**
 * How long a claimed job is held without a sign of life: the instance performing it renews the
 * lease while it works, so a job whose instance died (killed mid-rebuild) is taken up again soon.
 */
const leaseMs = 30_000;
const renewMs = 10_000;

/** Delay before attempt `attempts + 1`: 1 s, 2 s, 4 s, ... at most 30 s. */
export function backoffMs(attempts: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, attempts - 1));
}

/** The transitions artifacts show; every other transition ends when its server's machine converged. */
const shownByArtifacts = Object.values(artifactTransitions);

/**
 * Takes the next due job, if any, for this instance to run: the first of its line, with no other
 * job of that line being performed (a machine does one thing at a time, in order). Across lines,
 * a snapshot used by another server is made before that server's machine converges, and
 * forgotten only after: a server created or restored from a snapshot still being copied (or
 * removed meanwhile) gets it. Neither wait outlasts COMPUTE_ACTION_TIMEOUT_SECONDS.
 */
async function claim(ctx: Platform): Promise<ComputeJobRow | null> {
  return transaction(ctx, async (trx) => {
    const now = ctx.clock.now();
    // A lease is real time: a jump of the virtual clock must not hand a job being performed to another.
    const wall = Date.now();
    const waitMs = ctx.config.computeActionTimeoutSeconds * 1000;
    const job = await jobRepository.nextDue(ctx.dialect, trx, { now, wall, waitMs });
    if (!job) return null;
    const attempts = job.attempts + 1;
    // Suffixed while performed (once, even when a dead instance's job is taken up again).
    const key = job.key.endsWith(`#${job.id}`) ? job.key : `${job.key}#${job.id}`;
    await jobRepository.lease(trx, job.id, { lockedUntil: wall + leaseMs, attempts, key });
    return { ...job, attempts, locked_until: wall + leaseMs, key };
  });
}

/**
 * Ends the transition of the job's server that the job carried out, if it is still under way and
 * not asked again since: a converge ends any but an artifact's, an artifact its own. With
 * `failed`, a provisioning that ends so leaves the server stopped. The end is an event.
 */
async function endTransition(
  ctx: Platform,
  trx: Tx,
  job: ComputeJobRow,
  failed: boolean,
  forced = false,
): Promise<void> {
  const now = ctx.clock.now();
  const own = job.action === convergeJob ? null : artifactTransitions[job.action];
  if (job.action !== convergeJob && !own) return;
  const ended = await jobRepository.endTransition(
    trx,
    job,
    own ?? null,
    shownByArtifacts,
    { at: now, engineErrorCleared: !failed },
    now,
  );
  if (!ended) return;
  const server =
    failed && ended.action === provisioningTransition ? await jobRepository.stopServer(trx, ended.id) : ended;
  await serverSettledByEngine(ctx, trx, server, server.action ?? '', forced);
}

/**
 * The machine converged: the server's status takes what the engine reports (never its spec: the
 * power asked for stays as asked), the transition ends, the counters read go to the meter.
 */
async function settleConverge(ctx: Platform, job: ComputeJobRow, report: ConvergeReport): Promise<void> {
  await transaction(ctx, async (trx) => {
    if (report.traffic) await recordTraffic(trx, job.line, report.traffic);
    if (report.power) {
      const { power, diskGeneration, powerGeneration, host } = report;
      const seen = seenReport(
        { disk_generation: diskGeneration ?? 0 },
        { power, diskGeneration, powerGeneration, host },
      );
      await reportStatus(ctx, trx, job.line, { ...seen, engineError: null });
    }
    await endTransition(ctx, trx, job, false, report.forced);
    await jobRepository.deleteJob(trx, job);
  });
}

/** The artifact made (or forgotten): a copy completes now, at the size the engine reports. */
async function settleArtifact(
  ctx: Platform,
  job: ComputeJobRow,
  artifact: Artifact,
  report: ArtifactReport,
): Promise<void> {
  await transaction(ctx, async (trx) => {
    const now = ctx.clock.now();
    if (copyingArtifacts.includes(artifact.kind) && 'snapshot' in artifact) {
      const copied = await jobRepository.completeCopy(trx, artifact.snapshot, now, report.sizeGb);
      if (copied) await imageCompletedByEngine(ctx, trx, copied);
    }
    await endTransition(ctx, trx, job, false);
    await jobRepository.deleteJob(trx, job);
  });
}

/**
 * The job failed: tried again after a back-off, or, out of attempts, dropped with the reason on
 * the server (engine_error) and the transition ended; a failed provisioning settles stopped.
 */
async function fail(ctx: Platform, job: ComputeJobRow, error: unknown): Promise<void> {
  const message = (error as Error).message ?? String(error);
  const now = ctx.clock.now();
  // A lost machine is not retried: nothing but an explicit action (a new disk, a removal) can help.
  const lost = error instanceof MachineLost;
  if (!lost && job.attempts < ctx.config.computeJobAttempts) {
    ctx.log.warn(
      { line: job.line, action: job.action, attempt: job.attempts, err: message },
      'compute job failed; retrying',
    );
    await jobRepository.retryLater(ctx.db, job, now + backoffMs(job.attempts), message);
    return;
  }
  ctx.log.error({ line: job.line, action: job.action, attempts: job.attempts, err: message }, 'compute job gave up');
  if (isHostJob(job.action)) {
    const action = job.action;
    await transaction(ctx, async (trx) => {
      await hostWorkGaveUp(ctx, trx, action, job.payload, job.attempts, message);
      await jobRepository.deleteJob(trx, job);
    });
    return;
  }
  await transaction(ctx, async (trx) => {
    // A copy given up on ends failed and is told (its account's lock first: before the server's row).
    const copy =
      job.action !== convergeJob && (copyingArtifacts as readonly string[]).includes(job.action)
        ? artifactOrNull(job.payload)
        : null;
    if (copy && 'snapshot' in copy)
      await copyFailed(
        ctx,
        trx,
        copy.snapshot,
        `the copy failed after ${job.attempts} attempts: ${message}`.slice(0, 2000),
      );
    const server = await jobRepository.serverAction(trx, job.line);
    // Named by the transition under way (a provisioning), else by the work itself.
    const what = server?.action && (server.action_until ?? 0) > now ? server.action : job.action;
    const reason = (
      lost ? `${what} refused: ${message}` : `${what} failed after ${job.attempts} attempts: ${message}`
    ).slice(0, 2000);
    // First: a machine turning lost, or a disk given up making, takes its account's lock (its
    // billing stops) before the server's row.
    if (lost) await reportStatus(ctx, trx, job.line, { conditions: [engineReachable, machineMissing] });
    else if (job.action === convergeJob && (await diskUnmade(trx, job.line)))
      await reportStatus(ctx, trx, job.line, { conditions: [createFailed(message)] });
    await jobRepository.setEngineError(trx, job.line, reason);
    await endTransition(ctx, trx, job, true);
    await jobRepository.deleteJob(trx, job);
  });
}

const hostJobNames: readonly string[] = Object.values(hostJobs);
const isHostJob = (action: string): action is HostJob => hostJobNames.includes(action);

/** True when the engine never reported the disk the server asks for made (a create given up). */
async function diskUnmade(trx: Tx, serverUuid: string): Promise<boolean> {
  const status = await jobRepository.serverStatus(trx, serverUuid);
  return status !== undefined && status.observed_disk_generation !== status.disk_generation;
}

async function perform(ctx: Platform, engine: Engine, job: ComputeJobRow): Promise<void> {
  // Signs of life while the engine works, so the lease outlives no dead instance for long.
  const renewal = setInterval(() => {
    void jobRepository
      .renewLease(ctx.db, job, Date.now() + leaseMs)
      .catch((error: unknown) => ctx.log.warn({ err: (error as Error).message }, 'compute job: lease renewal failed'));
  }, renewMs);
  renewal.unref();
  try {
    if (job.action === convergeJob) {
      // A machine made or re-addressed is filtered before it runs, not from the next reconciliation on.
      const report = await engine.converge(job.line, await desiredMachine(ctx, job.line), ctx.clock.now(), () =>
        egressPolicy(ctx),
      );
      await settleConverge(ctx, job, report);
    } else if (isHostJob(job.action)) {
      await performHostJob(ctx, engine, job.action, job.payload);
      // The machines the engine moved are told now (server.moved each), not at the next round.
      await reconcile(ctx);
      await transaction(ctx, async (trx) => {
        await hostWorkDone(trx, job.payload);
        await jobRepository.deleteJob(trx, job);
      });
    } else {
      const artifact = parseArtifact(job.payload);
      await settleArtifact(ctx, job, artifact, await engine.produce(artifact));
    }
  } catch (error) {
    await fail(ctx, job, error).catch((failure: unknown) =>
      ctx.log.error({ err: (failure as Error).message }, 'compute job: recording a failure failed; the lease expires'),
    );
  } finally {
    clearInterval(renewal);
  }
}

/**
 * What each reconciliation's observations feed besides the servers' power and drift: one consumer
 * each, run in order after the servers are reconciled (a failure is logged, the others still run).
 */
export type ObservationConsumer = (
  ctx: Platform,
  seen: ReadonlyMap<string, Pick<EngineObservation, 'traffic' | 'usage'>>,
  now: number,
) => Promise<void>;

/** The traffic meter takes each running machine's counters. */
const meterTraffic: ObservationConsumer = async (ctx, seen) => {
  for (const [uuid, observation] of seen) {
    const reading = observation.traffic;
    if (reading) await transaction(ctx, (trx) => recordTraffic(trx, uuid, reading));
  }
};

/** The usage graphs take a sample of each running machine. */
const sampleUsage: ObservationConsumer = async (ctx, seen, now) => {
  await recordUsage(ctx, seen, now);
};

export const observationConsumers: ObservationConsumer[] = [meterTraffic, sampleUsage];

/**
 * Servers a full reconciliation reads at once (their rows, specs and the engine's view of their
 * machines): what it holds is a page's, whatever the fleet. A thousand, the size of the spec
 * reads' batches: the page is most of what lives during a full read, and a serving instance's
 * heap may grow to ~1.4 times what lives (bin/nubis.ts); 5,000 left the peak 5–15 MB higher
 * for no less CPU (docs/benchmarks.md).
 */
export const resyncPageSize = 1000;

/** The engine's answer, or why it could not be had within COMPUTE_OBSERVE_TIMEOUT_SECONDS. */
async function bounded<T>(ctx: Platform, asked: () => Promise<T>): Promise<{ answer: T } | { unreachable: string }> {
  const boundMs = ctx.config.computeObserveTimeoutSeconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the engine did not answer within ${boundMs / 1000} s`)), boundMs);
  });
  try {
    return { answer: await Promise.race([asked(), late]) };
  } catch (error) {
    return { unreachable: (error as Error).message ?? String(error) };
  } finally {
    clearTimeout(timer);
  }
}

/** What a round read of the engine: the machines of the servers whose events were heard, or every machine. */
type EngineView =
  | { changed: ReadonlySet<string>; seen: Map<string, EngineObservation> }
  | { reading: EngineReading }
  | { unreachable: string };

async function readEngine(
  ctx: Platform,
  engine: Engine,
  changed: ReadonlySet<string> | null,
  now: number,
): Promise<EngineView> {
  if (!changed) {
    const read = await bounded(ctx, () => engine.readAll(now));
    return 'answer' in read ? { reading: read.answer } : read;
  }
  const specs = await desiredMachines(ctx, ctx.db, [...changed]);
  const read = await bounded(ctx, () => engine.observe(specs, now, changed));
  return 'answer' in read ? { changed, seen: read.answer } : read;
}

/** Every server's conditions, a page at a time. */
const conditionPages = (ctx: Platform, pageSize: number) =>
  keysetPages((after) => jobRepository.serverConditions(ctx.db, after, pageSize));

/**
 * The engine did not answer: every server's status says so (EngineReachable false, power shown
 * unknown); its spec and queued work stay as they are, to be carried out when it is back.
 */
async function markUnreachable(ctx: Platform, reason: string, pageSize: number): Promise<number> {
  const condition = engineUnreachable(reason);
  let marked = 0;
  for await (const rows of conditionPages(ctx, pageSize))
    for (const row of rows) {
      if (parseConditions(row.conditions).some((c) => c.type === 'EngineReachable' && c.status === 'false')) continue;
      marked += await transaction(ctx, async (trx) =>
        (await reportStatus(ctx, trx, row.uuid, { conditions: [condition] })) ? 1 : 0,
      );
    }
  return marked;
}

/** Engines whose last round found them unreachable: the next round that reaches one reads everything. */
const unreachableEngines = new WeakSet<Engine>();

/**
 * The engine answered after an outage: a server still marked out of reach once the idle servers
 * are reconciled is one mid-job (skipped by the round, its job reports the rest); it shows the
 * engine reachable at once, not only when its job reports. Answers how many it marked.
 */
async function markReachable(ctx: Platform, pageSize: number): Promise<number> {
  let marked = 0;
  for await (const rows of conditionPages(ctx, pageSize))
    for (const row of rows) {
      if (!parseConditions(row.conditions).some((c) => c.type === 'EngineReachable' && c.status === 'false')) continue;
      marked += await transaction(ctx, async (trx) =>
        (await reportStatus(ctx, trx, row.uuid, { conditions: [engineReachable] })) ? 1 : 0,
      );
    }
  return marked;
}

/** The hosts each engine reported offline at its last round, named in order. */
const offlineHosts = new WeakMap<Engine, string>();

/** A round that could not reach the engine: every server says so; the next round that reaches it reads all. */
async function unreachableRound(ctx: Platform, engine: Engine, error: string, pageSize: number): Promise<number> {
  unreachableEngines.add(engine);
  const marked = await markUnreachable(ctx, error, pageSize);
  if (marked) ctx.log.warn({ marked, err: error }, 'the engine is unreachable');
  return marked;
}

/**
 * Machines no server owns (an older database restored): reported, never removed on their own. A
 * round that read only what changed judges only those; a full read, every machine the engine
 * listed, a page of names at a time (each checked against the servers' rows after the engine
 * answered, so a server made meanwhile, whose row precedes its machine, is not taken for one).
 */
async function noteOrphans(
  ctx: Platform,
  view: Exclude<EngineView, { unreachable: string }>,
  now: number,
  pageSize: number,
): Promise<void> {
  const found = new Map<string, EngineObservation>();
  if ('seen' in view) {
    for (const uuid of await unownedMachines(ctx, [...view.seen.keys()]))
      found.set(uuid, view.seen.get(uuid) as EngineObservation);
    return noteOrphanMachines(ctx, found, now, view.changed);
  }
  for (const uuids of view.reading.servers(pageSize)) {
    const unowned = await unownedMachines(ctx, uuids);
    if (unowned.length === 0) continue;
    for (const [uuid, machine] of view.reading.observe(new Map(), new Set(unowned))) found.set(uuid, machine);
  }
  return noteOrphanMachines(ctx, found, now);
}

type IdleServer = Awaited<ReturnType<typeof jobRepository.idleServersAmong>>[number];

/**
 * The idle servers' rows compared with what the engine saw of their machines: each status takes
 * the report, drift is put back. Answers how many servers it corrected.
 */
async function reconcileServers(
  ctx: Platform,
  rows: readonly IdleServer[],
  seen: ReadonlyMap<string, EngineObservation>,
  hosts: HostView,
  now: number,
): Promise<number> {
  let corrected = 0;
  for (const row of rows) {
    const found = seen.get(row.uuid);
    // A single engine's instances carry no member name: they are on its one host.
    const machine = found && found.host === undefined && hosts.only ? { ...found, host: hosts.only } : found;
    const host = machine?.host ?? row.host;
    const onLostHost = host !== null && host !== undefined && hosts.offline.has(host);
    const drift = onLostHost ? [] : (machine?.drift ?? []);
    const before = row.observed_power ?? row.power;
    const report = onLostHost ? hostLostReport(host) : machine ? seenReport(row, machine) : missingReport(row);
    // A round with nothing new writes nothing (and opens no transaction).
    if (drift.length === 0 && !statusChange(row, report, now)) continue;
    corrected += await transaction(ctx, async (trx) => {
      const written = await reportStatus(ctx, trx, row.uuid, report);
      // A machine stopped (or started) outside Nubis: the events tell it too.
      if (written && machine && !onLostHost && machine.power !== before)
        await serverPowerChanged(ctx, trx, written, machine.power, 'the engine reported it');
      if (drift.length === 0) return written ? 1 : 0;
      const idle = await jobRepository.correctIdle(trx, row.id, now);
      if (!idle) return written ? 1 : 0;
      await queueConverge(ctx, trx, row.uuid);
      await serverDriftCorrected(ctx, trx, idle, drift);
      return 1;
    });
  }
  return corrected;
}

/**
 * A full read: the idle servers a page at a time (keyset on id), each page's specs read and its
 * machines asked of the engine's reading, so nothing the size of the fleet is held at once.
 */
async function reconcilePages(
  ctx: Platform,
  reading: EngineReading,
  hosts: HostView,
  now: number,
  pageSize: number,
): Promise<number> {
  let corrected = 0;
  for await (const rows of keysetPages((after) => jobRepository.idleServers(ctx.db, now, after, pageSize))) {
    const uuids = rows.map((row) => row.uuid);
    const specs = await desiredMachines(ctx, ctx.db, uuids);
    corrected += await reconcileServers(ctx, rows, reading.observe(specs, new Set(uuids)), hosts, now);
  }
  return corrected;
}

/**
 * Reconciliation: each server with no transition and no job under way takes the engine's report
 * into its status (never its spec): the observed power (a machine stopped outside Nubis shows
 * stopped, with a server.power event), generations and conditions; a machine the engine made and
 * no longer has is lost (told once; never made again on its own); limits or NICs changed outside
 * Nubis are put back (a converge job, with a server.drift event saying what). An engine that does
 * not answer marks every server unreachable. A machine no server owns is reported (orphan-machines.ts).
 * With an engine that tells what changed (an informer on its events), a round reads only those
 * servers and their machines, so a round with nothing changed costs the same whatever the fleet;
 * every COMPUTE_RESYNC_SECONDS, after a dropped event stream and after an outage it reads
 * everything, `pageSize` servers at a time. Answers how many servers it corrected.
 */
export async function reconcile(ctx: Platform, pageSize = resyncPageSize): Promise<number> {
  const engine = ctx.compute.engine;
  if (!engine) return 0;
  const told = engine.changes();
  const wasUnreachable = unreachableEngines.has(engine);
  const now = ctx.clock.now();
  let view = await readEngine(ctx, engine, told && !wasUnreachable ? told : null, now);
  if ('unreachable' in view) return unreachableRound(ctx, engine, view.unreachable, pageSize);
  // The hosts: one the engine reports offline has its machines lost with it (HostLost).
  const hosts = await refreshEngineHosts(ctx, engine).then(hostView, (error: unknown) => {
    ctx.log.warn({ err: (error as Error).message }, 'reconciliation: the engine did not list its hosts');
    return hostView([]);
  });
  // A host gone offline (or back) tells nothing through events of its machines: the round that
  // finds it reads every server, so those on it are shown as they are within this round.
  const offline = [...hosts.offline].sort().join(' ');
  if ('seen' in view && offline !== offlineHosts.get(engine)) {
    view = await readEngine(ctx, engine, null, now);
    if ('unreachable' in view) return unreachableRound(ctx, engine, view.unreachable, pageSize);
  }
  offlineHosts.set(engine, offline);
  unreachableEngines.delete(engine);
  await noteOrphans(ctx, view, now, pageSize).catch((error: unknown) =>
    ctx.log.warn({ err: (error as Error).message }, 'reconciliation: looking for orphaned machines failed'),
  );
  if ('reading' in view) {
    // An operator's change of an account's smtp or blocked ports reaches its servers through a
    // network change of each (operator.service.ts); a full round puts back whatever else moved.
    await enforceEgress(ctx).catch((error: unknown) =>
      ctx.log.warn(
        { err: (error as Error).message },
        'blocked ports: the engine refused the rules; next round retries',
      ),
    );
  }
  // The first-boot scripts' outcomes the guests recorded since the last round.
  await collectScriptReports(ctx);
  let corrected =
    'seen' in view
      ? await reconcileServers(
          ctx,
          await jobRepository.idleServersAmong(ctx.db, now, [...view.changed]),
          view.seen,
          hosts,
          now,
        )
      : await reconcilePages(ctx, view.reading, hosts, now, pageSize);
  // Back after an outage: servers mid-job (not in this round's rows) show the engine reachable too.
  if (wasUnreachable) corrected += await markReachable(ctx, pageSize);
  return corrected;
}

async function consumeObservations(
  ctx: Platform,
  seen: ReadonlyMap<string, Pick<EngineObservation, 'traffic' | 'usage'>>,
  now: number,
): Promise<void> {
  for (const consume of observationConsumers)
    await consume(ctx, seen, now).catch((error: unknown) =>
      ctx.log.warn({ err: (error as Error).message }, 'reconciliation: an observation consumer failed'),
    );
}

/**
 * The running machines' counters and use, read in one batch every COMPUTE_USAGE_SECONDS for the
 * traffic meter and the graphs: its cost follows the machines running, as the readings it yields
 * do (docs/decisions.md). Answers how many machines were read.
 */
export async function readUsage(ctx: Platform): Promise<number> {
  const engine = ctx.compute.engine;
  if (!engine) return 0;
  const now = ctx.clock.now();
  const read = await engine.readUsage(now);
  await consumeObservations(ctx, read, now);
  return read.size;
}

/**
 * Runs jobs (up to COMPUTE_JOB_CONCURRENCY at once), reconciles every COMPUTE_RECONCILE_SECONDS and
 * reads the running machines' use every COMPUTE_USAGE_SECONDS.
 */
export function startJobRunner(ctx: Platform): { stop(): Promise<void> } {
  const engine = ctx.compute.engine;
  if (!engine) return { stop: async () => {} };
  const running = new Set<Promise<void>>();
  let stopped = false;
  let lastReconcile = 0;
  let reconciling: Promise<void> | null = null;
  let lastReading = 0;
  let reading: Promise<void> | null = null;

  const tick = async () => {
    while (!stopped && running.size < ctx.config.computeJobConcurrency) {
      const job = await claim(ctx).catch((error: unknown) => {
        ctx.log.warn({ err: (error as Error).message }, 'compute job claim failed');
        return null;
      });
      if (!job) break;
      const work = perform(ctx, engine, job).finally(() => running.delete(work));
      running.add(work);
    }
    if (!stopped && !reading && Date.now() - lastReading >= ctx.config.computeUsageSeconds * 1000) {
      lastReading = Date.now();
      reading = readUsage(ctx)
        .catch((error: unknown) =>
          ctx.log.warn({ err: (error as Error).message }, "reading the machines' use failed; next reading retries"),
        )
        .then(() => {
          reading = null;
        });
    }
    if (!stopped && !reconciling && Date.now() - lastReconcile >= ctx.config.computeReconcileSeconds * 1000) {
      lastReconcile = Date.now();
      reconciling = reconcile(ctx)
        .then(
          (corrected) => {
            if (corrected) ctx.log.info({ corrected }, 'reconciliation corrected servers from the engine');
          },
          (error: unknown) =>
            ctx.log.warn({ err: (error as Error).message }, 'reconciliation failed; next round retries'),
        )
        .finally(() => {
          reconciling = null;
        });
    }
  };
  let ticking: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (!ticking)
      ticking = tick().finally(() => {
        ticking = null;
      });
  }, 200);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await ticking;
      await reconciling;
      await reading;
      await Promise.allSettled([...running]);
      engine.close();
    },
  };
}
