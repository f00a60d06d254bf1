// A snapshot's or backup's copy the engine gave up on: it ends `failed` with the reason (an
// extension of the status values, docs/decisions.md), its billing stops, whatever the engine
// made of its image goes, and the owner is told by an event and a mail. Called by the job runner
// when a copying job runs out of attempts, first in its transaction (the account lock comes first).

import type { Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import { accountRepository } from '../accounts/account.repository.ts';
import { closeInvoiceItems } from '../billing/invoice-items.ts';
import { artifacts } from '../compute/compute-driver.ts';
import { recordIntent } from '../compute/machine-intents.ts';
import { recordEvent } from '../events/event.service.ts';
import { letterText } from '../mail/letter.ts';
import { queueMail } from '../mail/mail.service.ts';
import { snapshotRepository } from './snapshot.repository.ts';

/** Answers true when the copy was still under way and is now failed. */
export async function copyFailed(ctx: Platform, trx: Tx, snapshotUuid: string, reason: string): Promise<boolean> {
  const owner = await snapshotRepository.ownerOfCopy(trx, snapshotUuid);
  if (!owner) return false;
  await lockAccount(ctx, trx, owner.account_id);
  const failed = await snapshotRepository.markFailed(trx, snapshotUuid, reason, ctx.clock.now());
  if (!failed) return false;
  await closeInvoiceItems(ctx, trx, failed.uuid);
  // A half-made image is not left behind (forgetting one never made does nothing).
  await recordIntent(ctx, trx, artifacts.forgetImage(failed));
  const kind = failed.type === 'backup' ? 'backup' : 'snapshot';
  // In place of the completion scheduled at the upper bound.
  await recordEvent(
    ctx,
    trx,
    {
      accountId: failed.account_id,
      resource: { type: kind, uuid: failed.uuid },
      type: `${kind}.failed`,
      data: { server: failed.server_uuid, reason },
      cause: 'engine',
    },
    { supersede: true },
  );
  const account = await accountRepository.addressee(trx, failed.account_id);
  await queueMail(ctx, trx, {
    to: account.email,
    subject: `Your ${kind} ${failed.name} failed`,
    text: letterText(account.firstname, [
      `The ${kind} ${failed.name} (${failed.uuid}) of server ${failed.server_uuid} could not be taken:`,
      reason,
      `It is shown as failed, is not billed and cannot be restored; remove it when you like${kind === 'snapshot' ? ' and take a new one' : ''}.`,
    ]),
  });
  return true;
}
