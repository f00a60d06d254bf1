// Fault injection for client developers: rules that make matching requests fail (a status in
// the API's own error shape), or answer late, on purpose. Rules live in the database so every
// instance applies the same ones and counts each firing once; each instance keeps a copy that
// it reloads at most a second after it was read (and at once after its own changes).

import type { Platform } from '../platform/context.ts';
import { Invalid, NotFound } from '../platform/errors.ts';
import type { FaultRuleRow } from './fault.table.ts';
import { faultRuleRepository, type NewFaultRule } from './fault.repository.ts';
import { findAccount } from '../accounts/operator.service.ts';

export interface FaultRuleInput {
  match: {
    method?: string;
    path?: string;
    operation?: string;
    /** The account's id, uuid or e-mail. */
    account?: string;
    api?: 'v1.3' | 'v1';
  };
  action: { status?: number; latency_ms?: number; retry_after?: number; compute_fail?: boolean };
  /** The next N matching requests; absent: until removed. */
  times?: number;
  /** Chance that a matching request fires the rule, 0 to 1 (default 1). */
  probability?: number;
  note?: string;
}

/** A rule as the domain sees it (the operator API shapes it for the wire): as added, with its firings. */
export interface FaultRule extends NewFaultRule {
  id: number;
  fired: number;
}

/** What the HTTP layer knows of a request when it asks whether a rule fires. */
export interface FaultRequest {
  method: string;
  /** The path without its query string. */
  path: string;
  /** The route's pattern (`/v1.3/server/:id`), when one matched. */
  route: string | undefined;
  operationId: string | undefined;
  accountId: number | null;
  api: 'v1.3' | 'v1';
  /** The statuses the operation documents (an unknown operation: every status). A rule's 4xx fires only where documented. */
  documented?: ReadonlySet<number>;
}

export interface FiredFault {
  ruleId: number;
  status: number | null;
  latencyMs: number;
  retryAfter: number | null;
  computeFail: boolean;
}

/** Statuses a rule may answer: failures a client must handle, in each API's error shape. */
export const injectableStatuses = [400, 401, 402, 403, 404, 409, 429, 500, 502, 503, 504] as const;

const reloadAfterMs = 1_000;

interface RuleCache {
  rules: FaultRuleRow[];
  loadedAt: number;
  loading: Promise<FaultRuleRow[]> | null;
}
const caches = new WeakMap<Platform, RuleCache>();

function cacheOf(ctx: Platform): RuleCache {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = { rules: [], loadedAt: -Infinity, loading: null };
    caches.set(ctx, cache);
  }
  return cache;
}

/** The rules in force, as of at most a second ago; synchronous (null) when the copy must be reloaded. */
function freshRules(ctx: Platform): FaultRuleRow[] | null {
  const cache = cacheOf(ctx);
  return Date.now() - cache.loadedAt < reloadAfterMs ? cache.rules : null;
}

async function reloadRules(ctx: Platform): Promise<FaultRuleRow[]> {
  const cache = cacheOf(ctx);
  cache.loading ??= faultRuleRepository
    .all(ctx.db)
    .then((rules) => {
      cache.rules = rules.filter((rule) => rule.remaining === null || rule.remaining > 0);
      cache.loadedAt = Date.now();
      return cache.rules;
    })
    .finally(() => {
      cache.loading = null;
    });
  return cache.loading;
}

function invalidate(ctx: Platform): void {
  cacheOf(ctx).loadedAt = -Infinity;
}

function matches(rule: FaultRuleRow, request: FaultRequest): boolean {
  // An injected failure keeps the contract: a 4xx the operation never answers (a 403 on
  // ssh_key/rename) would be a fault of Nubis, not one to practise on. A 5xx is an outage: anywhere.
  if (rule.status !== null && rule.status < 500 && request.documented && !request.documented.has(rule.status))
    return false;
  if (rule.api !== null && rule.api !== request.api) return false;
  if (rule.method !== null && rule.method !== request.method) return false;
  if (rule.operation_id !== null && rule.operation_id !== request.operationId) return false;
  if (rule.account_id !== null && rule.account_id !== request.accountId) return false;
  if (rule.path !== null) {
    const path = rule.path;
    if (path.endsWith('*')) {
      if (!request.path.startsWith(path.slice(0, -1))) return false;
    } else if (path !== request.path && path !== request.route) return false;
  }
  return true;
}

/** Counts a firing in the database; false when the rule is gone or used up (another instance may have taken the last one). */
async function claim(ctx: Platform, rule: FaultRuleRow): Promise<boolean> {
  if (await faultRuleRepository.countFiring(ctx.db, rule)) return true;
  invalidate(ctx);
  return false;
}

/** True when no rule is set, as far as the rules read within the last reload period say (no query, no promise). */
export function noFaultRules(ctx: Platform): boolean {
  return freshRules(ctx)?.length === 0;
}

/** The rule that fires for this request, if any; cheap when no rule is set (no query, no allocation). */
export async function firedFault(ctx: Platform, request: FaultRequest): Promise<FiredFault | null> {
  const rules = freshRules(ctx) ?? (await reloadRules(ctx));
  if (rules.length === 0) return null;
  for (const rule of rules) {
    if (!matches(rule, request)) continue;
    if (rule.probability_ppm < 1_000_000 && ctx.random.fraction() * 1_000_000 >= rule.probability_ppm) continue;
    if (!(await claim(ctx, rule))) continue;
    return {
      ruleId: rule.id,
      status: rule.status,
      latencyMs: rule.latency_ms,
      retryAfter: rule.retry_after,
      computeFail: rule.compute_fail === 1,
    };
  }
  return null;
}

function describe(row: FaultRuleRow): FaultRule {
  return {
    id: row.id,
    match: {
      method: row.method,
      path: row.path,
      operation: row.operation_id,
      accountId: row.account_id,
      api: row.api,
    },
    action: {
      status: row.status,
      latencyMs: row.latency_ms,
      retryAfter: row.retry_after,
      computeFail: row.compute_fail === 1,
    },
    probability: row.probability_ppm / 1_000_000,
    remaining: row.remaining,
    fired: row.fired,
    note: row.note,
    createdAt: row.created_at,
  };
}

/** An operation of the API as a rule sees it: where it is served and the statuses it documents. */
export interface OperationContract {
  id: string;
  /** Upper case. */
  method: string;
  /** As the OpenAPI document writes it: `/v1.3/server/{server_id}`. */
  path: string;
  statuses: ReadonlySet<number>;
}

/** A path's parameters written alike (`{id}`, `:id`), so a route pattern compares with the document's. */
const routeForm = (path: string) => path.replace(/\{[^}/]+\}|:[^/]+/g, ':');

/** The document's path as a pattern a request's path matches (a parameter: one segment). */
function pathPattern(path: string): RegExp {
  const literal = path
    .split(/\{[^}/]+\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${literal}$`);
}

/**
 * The operations a rule can match, or undefined when it may match any (no operation, and a path
 * absent or ending in `*`). A path is the request's (`/v1.3/server/42`) or the route's
 * (`/v1.3/server/:server_id`), as `matches` reads it; per method, a route written out in full wins
 * over one with a parameter, as the router chooses.
 */
function reachableOperations(
  match: FaultRuleInput['match'],
  operations: readonly OperationContract[],
): OperationContract[] | undefined {
  const path = match.path;
  const exactPath = path !== undefined && !path.endsWith('*');
  if (match.operation === undefined && !exactPath) return undefined;
  const method = match.method?.toUpperCase();
  let found = operations.filter(
    (op) => (match.operation === undefined || op.id === match.operation) && (!method || op.method === method),
  );
  if (exactPath) {
    const byMethod = new Map<string, OperationContract[]>();
    for (const op of found) byMethod.set(op.method, [...(byMethod.get(op.method) ?? []), op]);
    found = [...byMethod.values()].flatMap((ops) => {
      const same = ops.filter((op) => routeForm(op.path) === routeForm(path));
      return same.length > 0 ? same : ops.filter((op) => pathPattern(op.path).test(path));
    });
  }
  return found;
}

/**
 * `operations`: the API's, with their documented statuses. A 4xx fires only where documented
 * (matches), so a rule that can only match operations that never answer its 4xx (one operation
 * named, or an exact path) would never fire: refused.
 */
export async function addFaultRule(
  ctx: Platform,
  input: FaultRuleInput,
  operations: readonly OperationContract[] = [],
): Promise<FaultRule> {
  const { match, action } = input;
  const reachable = reachableOperations(match, operations);
  if (
    action.status !== undefined &&
    action.status < 500 &&
    reachable &&
    reachable.length > 0 &&
    !reachable.some((op) => op.statuses.has(action.status as number))
  ) {
    const statuses = new Set(reachable.flatMap((op) => [...op.statuses]));
    const what =
      match.operation ??
      `${match.method?.toUpperCase() ?? 'any method on'} ${match.path} (${[...new Set(reachable.map((op) => op.id))].join(', ')})`;
    throw new Invalid(
      'action.status',
      `${what} never answers ${action.status}, so the rule would never fire; it documents ` +
        `${[...statuses].sort((a, b) => a - b).join(', ')} (any 5xx may be injected)`,
    );
  }
  if (action.status === undefined && !action.latency_ms && !action.compute_fail)
    throw new Invalid('action', 'name a status to answer, a latency_ms to add, or compute_fail');
  if (action.compute_fail && action.status !== undefined)
    throw new Invalid(
      'action.compute_fail',
      'a request answered with a status runs no compute action: name one of them',
    );
  if (action.retry_after !== undefined && action.status === undefined)
    throw new Invalid('action.retry_after', 'goes with a status (429 or 503)');
  const accountId = match.account === undefined ? null : (await findAccount(ctx, match.account)).id;
  const row = await faultRuleRepository.insert(ctx.db, {
    match: {
      method: match.method?.toUpperCase() ?? null,
      path: match.path ?? null,
      operation: match.operation ?? null,
      accountId,
      api: match.api ?? null,
    },
    action: {
      status: action.status ?? null,
      latencyMs: action.latency_ms ?? 0,
      retryAfter: action.retry_after ?? (action.status === 429 || action.status === 503 ? 1 : null),
      computeFail: action.compute_fail === true,
    },
    probability: input.probability ?? 1,
    remaining: input.times ?? null,
    note: input.note ?? null,
    createdAt: ctx.clock.now(),
  });
  invalidate(ctx);
  return describe(row);
}

export async function listFaultRules(ctx: Platform): Promise<FaultRule[]> {
  return (await faultRuleRepository.all(ctx.db)).map(describe);
}

export async function removeFaultRule(ctx: Platform, id: number): Promise<void> {
  const removed = await faultRuleRepository.remove(ctx.db, id);
  invalidate(ctx);
  if (!removed) throw new NotFound('fault rule');
}

export async function removeAllFaultRules(ctx: Platform): Promise<void> {
  await faultRuleRepository.removeAll(ctx.db);
  invalidate(ctx);
}
