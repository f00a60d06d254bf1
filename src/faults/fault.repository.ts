// Queries on fault_rules: every rule (each instance keeps a copy), a firing counted once across
// instances, and the operator's add and remove.

import type { Insertable } from 'kysely';
import type { Queryable } from '../db/database.ts';
import type { FaultRuleRow, FaultRuleTable } from './fault.table.ts';

export const faultRuleRepository = {
  all(db: Queryable): Promise<FaultRuleRow[]> {
    return db.selectFrom('fault_rules').selectAll().orderBy('id').execute();
  },

  insert(db: Queryable, row: Insertable<FaultRuleTable>): Promise<FaultRuleRow> {
    return db.insertInto('fault_rules').values(row).returningAll().executeTakeFirstOrThrow();
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
