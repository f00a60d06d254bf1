// A lost server recovered by the operator: its machine remade on another host from one of its own
// backups or snapshots (a new disk generation from that image), the lost host avoided; the owner
// gets an event and a mail. Nothing else ever remakes a lost machine (issue 36).

import type { Platform } from '../platform/context.ts';
import { Conflict, NotFound } from '../platform/errors.ts';
import { parseRef } from '../platform/ids.ts';
import { transaction } from '../db/transaction.ts';
import { isLost, parseConditions } from '../compute/machine-conditions.ts';
import { lockAnyServer, type OperatorServer, toOperatorServer } from '../servers/server-operator.service.ts';
import { restoreOnto } from '../servers/server-actions.service.ts';
import { snapshotRepository } from '../snapshots/snapshot.repository.ts';
import { serverRecovered } from '../events/resource-events.ts';
import { accountRepository } from '../accounts/account.repository.ts';
import { queueMail } from '../mail/mail.service.ts';
import { letterText } from '../mail/letter.ts';
import { hostRepository } from './host.repository.ts';

/**
 * Remakes a lost server's machine from `imageRef` (a backup or snapshot taken from that server,
 * complete): on another host than the one it was lost with. 409 when the server is not lost, or
 * the image is another server's, failed, or not yet complete; 404 when no such image is the owner's.
 */
export async function recoverServer(
  ctx: Platform,
  serverRef: string,
  imageRef: string | number,
): Promise<OperatorServer> {
  return transaction(ctx, async (trx) => {
    const server = await lockAnyServer(ctx, trx, serverRef);
    if (!isLost(parseConditions(server.conditions)))
      throw new Conflict("the server's machine is not lost: only a lost machine is recovered");
    const parsed = parseRef(imageRef);
    const image = parsed ? await snapshotRepository.findOwned(trx, server.account_id, parsed) : undefined;
    if (!image) throw new NotFound('backup');
    if (image.server_uuid !== server.uuid)
      throw new Conflict(`the ${image.type} was taken from another server: a recovery uses the server's own`);
    if (image.failure !== null) throw new Conflict(`the ${image.type} failed and holds no disk: ${image.failure}`);
    const now = ctx.clock.now();
    if (image.ready_at > now) throw new Conflict(`the ${image.type} is still being copied: it holds no whole disk yet`);
    // The spec: the new machine avoids the host the old one was lost with.
    const avoided = server.host;
    await hostRepository.setAvoidHost(trx, server.id, avoided);
    await restoreOnto(ctx, trx, { ...server, avoid_host: avoided }, image);
    const recovered = await lockAnyServer(ctx, trx, serverRef);
    await serverRecovered(ctx, trx, recovered, { image: image.uuid, avoided });
    const account = await accountRepository.addressee(trx, server.account_id);
    await queueMail(ctx, trx, {
      to: account.email,
      subject: `Your server ${server.name} is being recovered from its ${image.type}`,
      text: letterText(account.firstname, [
        `Your server ${server.name} (${server.hostname}, ${server.uuid}) lost its machine. We are making it a new one`,
        `on another host from its ${image.type} "${image.name}" (${image.uuid}): its disk is as it was when that`,
        `${image.type} was taken, at the same addresses. Anything written after that is not on it.`,
        'The server is billed again from now.',
      ]),
    });
    return toOperatorServer(ctx, recovered, now);
  });
}
