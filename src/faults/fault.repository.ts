// Queries on fault_rules: every rule (each instance keeps a copy), a firing counted once across
// instances, and the operator's add and remove.

import type { Insertable } from 'kysely';
import type { Queryable } from '../db/database.ts';
import type { FaultRuleRow, FaultRuleTable } from './fault.table.ts';

/** A rule as the operator adds it (fault.service.ts decides each value); faultRuleRow makes its row. */
export interface NewFaultRule {
  /** Each null matches any request. */
  match: {
    /** Upper case. */
    method: string | null;
    path: string | null;
    operation: string | null;
    accountId: number | null;
    api: string | null;
  };
  action: { status: number | null; latencyMs: number; retryAfter: number | null; computeFail: boolean };
  /** 0 to 1. */
  probability: number;
  /** Firings left; null: until removed. */
  remaining: number | null;
  note: string | null;
  createdAt: number;
}

/** The one mapping of a new rule to its row: the probability kept in millionths, not fired yet. */
function faultRuleRow(rule: NewFaultRule): Insertable<FaultRuleTable> {
  return {
    method: rule.match.method,
    path: rule.match.path,
    operation_id: rule.match.operation,
    account_id: rule.match.accountId,
    api: rule.match.api,
    status: rule.action.status,
    latency_ms: rule.action.latencyMs,
    compute_fail: rule.action.computeFail ? 1 : 0,
    retry_after: rule.action.retryAfter,
    probability_ppm: Math.round(rule.probability * 1_000_000),
    remaining: rule.remaining,
    note: rule.note,
    created_at: rule.createdAt,
  };
}

export const faultRuleRepository = {
  all(db: Queryable): Promise<FaultRuleRow[]> {
    return db.selectFrom('fault_rules').selectAll().orderBy('id').execute();
  },

  insert(db: Queryable, rule: NewFaultRule): Promise<FaultRuleRow> {
    return db.insertInto('fault_rules').values(faultRuleRow(rule)).returningAll().executeTakeFirstOrThrow();
  },

  /**
   * Counts one firing of the rule, and takes one of its remaining ones when it is limited;
   * false when the rule is gone or used up (another instance may have taken the last one).
   */
  async countFiring(db: Queryable, rule: FaultRuleRow): Promise<boolean> {
    const counted = db
      .updateTable('fault_rules')
      .set((eb) => ({ fired: eb('fired', '+', 1) }))
      .where('id', '=', rule.id);
    if (rule.remaining === null) return Number((await counted.executeTakeFirst()).numUpdatedRows) === 1;
    const result = await counted
      .set((eb) => ({ remaining: eb('remaining', '-', 1) }))
      .where('remaining', '>', 0)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Answers whether there was such a rule. */
  async remove(db: Queryable, id: number): Promise<boolean> {
    const result = await db.deleteFrom('fault_rules').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  },

  async removeAll(db: Queryable): Promise<void> {
    await db.deleteFrom('fault_rules').execute();
  },
};
