// Queries on the operator_audit table: one insert per operator action, and the newest-first
// listing with its filters.

import { type Insertable, sql } from 'kysely';
import type { Queryable } from '../db/database.ts';
import type { OperatorAuditTable } from './audit.table.ts';

/** One operator action to record, its texts already storable; operatorAuditRow makes its row. */
export interface NewAuditEntry {
  createdAt: number;
  operator: string;
  client: string;
  method: string;
  call: string;
  target: string | null;
  status: number;
  detail: string | null;
}

/** The one mapping of a recorded action to its row. */
function operatorAuditRow(entry: NewAuditEntry): Required<Omit<Insertable<OperatorAuditTable>, 'id'>> {
  return {
    created_at: entry.createdAt,
    operator: entry.operator,
    client: entry.client,
    method: entry.method,
    call: entry.call,
    target: entry.target,
    status: entry.status,
    detail: entry.detail,
  };
}

export interface AuditFilter {
  /** Only entries older than this id (paging backwards). */
  before?: number;
  /** Only calls whose route contains this text. */
  call?: string;
  limit: number;
}

export const auditRepository = {
  insert(db: Queryable, entry: NewAuditEntry) {
    return db.insertInto('operator_audit').values(operatorAuditRow(entry)).execute();
  },

  newestFirst(db: Queryable, filter: AuditFilter) {
    let select = db.selectFrom('operator_audit').selectAll().orderBy('id', 'desc').limit(filter.limit);
    if (filter.before !== undefined) select = select.where('id', '<', filter.before);
    if (filter.call) {
      const pattern = `%${filter.call.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      select = select.where(sql<boolean>`call like ${pattern} escape '\\'`);
    }
    return select.execute();
  },
};
