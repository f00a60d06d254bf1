// Automatic backups of a server: enable (billed as a share of the server's price) and
// disable. Restoring one goes through restoreImage; the daily backups come from backup.sweep.ts.

import type { Actor, Platform } from '../platform/context.ts';
import { Invalid } from '../platform/errors.ts';
import { requirePermission } from '../accounts/permissions.ts';
import { backupItem } from '../billing/pricing.ts';
import { closeInvoiceItems, openInvoiceItems } from '../billing/invoice-items.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { findServer } from '../servers/server.service.ts';
import { catalogOf } from '../catalog/catalog-of.ts';
import { serverRepository } from '../servers/server.repository.ts';
import { transaction } from '../db/transaction.ts';

export async function setBackups(
  ctx: Platform,
  actor: Actor,
  serverRef: string | number,
  enable: boolean,
): Promise<void> {
  requirePermission(actor, 'backups');
  await transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    const server = await findServer(ctx, trx, actor.accountId, serverRef, true);
    // The same state again changes nothing (202): the server is already where the caller wants it.
    if ((server.backup_enabled === 1) === enable) return;
    const { region, plan } = catalogOf(ctx, server);
    if (enable && !region.features.backups)
      throw new Invalid('server_id', `bad value: region ${server.region_id} offers no backups`);
    await serverRepository.update(trx, server.id, { backupEnabled: enable, updatedAt: ctx.clock.now() });
    if (enable) await openInvoiceItems(ctx, trx, server.account_id, server.uuid, [backupItem(plan, server.name)]);
    else await closeInvoiceItems(ctx, trx, server.uuid, ['backup']);
  });
}
