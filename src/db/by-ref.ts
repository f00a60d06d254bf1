// The condition of every look-up by an id-or-uuid reference (src/platform/ids.ts): the row's
// integer id or its uuid, as the reference names it.

import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Ref } from '../platform/ids.ts';

/**
 * `id = …` or `uuid = …`, as the reference names the row; `table` qualifies the column in a join.
 * Every table a reference names has both columns.
 *
 * @example db.selectFrom('tokens').selectAll().where('account_id', '=', accountId).where(byRef(ref))
 */
export function byRef(ref: Ref, table?: string): RawBuilder<SqlBool> {
  const column = (name: 'id' | 'uuid') => sql.ref(table ? `${table}.${name}` : name);
  return 'id' in ref ? sql<SqlBool>`${column('id')} = ${ref.id}` : sql<SqlBool>`${column('uuid')} = ${ref.uuid}`;
}
