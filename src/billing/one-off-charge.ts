// A charge billed once (a GB over a server's bandwidth allowance): an invoice item that is opened
// and closed at the same instant, so it costs its price exactly once, shows in the invoice list
// and sums like every other item, and settles into the account's balance at once.

import type { Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { invoiceItemClosed } from '../events/resource-events.ts';
import type { PricedItem } from './pricing.ts';
import { addSettled } from './settled.ts';
import { billingRepository } from './billing.repository.ts';

/**
 * Bills `item.amountMoMicros` once. The item begins a millisecond before now and ends now: one
 * started hour (metering.ts) at the item's price, its monthly cap the same price, so the charge is
 * that price whatever the hourly rules. Takes the account lock first (the lock order).
 */
export async function chargeOnce(
  ctx: Platform,
  trx: Tx,
  accountId: number,
  resourceUuid: string,
  item: PricedItem,
): Promise<void> {
  const now = ctx.clock.now();
  const charge = item.amountMoMicros;
  await lockAccount(ctx, trx, accountId);
  await billingRepository.insertOneOffItem(trx, {
    accountId,
    resourceType: item.resourceType,
    resourceUuid,
    description: item.description,
    chargeMicros: charge,
    openedAt: now - 1,
    closedAt: now,
  });
  await addSettled(trx, accountId, -charge);
  await invoiceItemClosed(
    ctx,
    trx,
    {
      account_id: accountId,
      resource_type: item.resourceType,
      resource_uuid: resourceUuid,
      description: item.description,
    },
    charge,
  );
}
