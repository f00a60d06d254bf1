// Opening and closing invoice items: billing starts when a resource exists and stops when
// it is removed (or changes price, e.g. a resize closes one item and opens another).

import type { Queryable } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import type { PricedItem } from './pricing.ts';

export async function openInvoiceItems(ctx: Platform, db: Queryable, accountId: number, resourceUuid: string, items: PricedItem[], prepaidUntil: number | null = null): Promise<void> {
  if (items.length === 0) return;
  const now = ctx.clock.now();
  await db.insertInto('invoice_items').values(items.map((item) => ({
    account_id: accountId,
    resource_type: item.resourceType,
    resource_uuid: resourceUuid,
    description: item.description,
    amount_hr_micros: item.amountHrMicros,
    amount_mo_micros: item.amountMoMicros,
    created_at: now,
    removed_at: null,
    prepaid_until: prepaidUntil,
  }))).execute();
}

/** Stops billing the resource's open items (all, or only those of the given types). */
export async function closeInvoiceItems(ctx: Platform, db: Queryable, resourceUuid: string, types?: PricedItem['resourceType'][]): Promise<void> {
  let query = db.updateTable('invoice_items').set({ removed_at: ctx.clock.now() }).where('resource_uuid', '=', resourceUuid).where('removed_at', 'is', null);
  if (types?.length) query = query.where('resource_type', 'in', types);
  await query.execute();
}
