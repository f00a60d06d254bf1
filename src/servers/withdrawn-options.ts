// An option a region no longer offers is not sold on: at start, servers holding DDoS protection in
// a region that does not offer it now (the operator's catalog withdrew it, or a real engine has no
// protection declared: region-features.ts) stop being billed for it and show it off. Idempotent and
// safe on several instances at once: the item closes and the flag drops by conditional updates.

import type { Platform } from '../platform/context.ts';
import { closeInvoiceItems } from '../billing/invoice-items.ts';
import { transaction } from '../db/transaction.ts';
import { serverRepository } from './server.repository.ts';

/** Settles every server's options against what its region offers now; the number of servers changed. */
export async function settleWithdrawnOptions(ctx: Platform): Promise<number> {
  const regions = [...ctx.catalog.regions.values()]
    .filter((region) => !region.features.ddos_protection)
    .map((region) => region.id);
  let changed = 0;
  for (const server of await serverRepository.ddosProtectedIn(ctx.db, regions)) {
    await transaction(ctx, async (trx) => {
      await closeInvoiceItems(ctx, trx, server.uuid, ['ddos_protection']);
      if (await serverRepository.dropDdosProtection(trx, server.id)) changed++;
    });
  }
  if (changed > 0)
    ctx.log.warn({ servers: changed }, 'DDoS protection is not offered in their regions: no longer billed, shown off');
  return changed;
}
