// A server's settings beside its lifecycle: reverse DNS of its addresses (rdns/get, rdns/put)
// and its options (option/get, option/set).

import { ptrName } from '../reverse-dns/ptr-name.ts';
import { lockAccount } from '../accounts/account-lock.ts';
import type { Queryable } from '../db/database.ts';
import type { Actor, Platform } from '../platform/context.ts';
import { Invalid } from '../platform/errors.ts';
import { requirePermission } from '../accounts/permissions.ts';
import { describeAllocated } from '../network/ip-pool.ts';
import { hostnameProblem } from './hostname.ts';
import { effectiveOptions, optionName, withOption } from './server-options.ts';
import { findServer } from './server.service.ts';
import { serverRepository } from './server.repository.ts';
import type { ServerRow } from './server.table.ts';
import { floatingIpRepository } from '../floating-ips/floating-ip.repository.ts';
import { transaction } from '../db/transaction.ts';
import { kickPtrPublishing, queuePtr } from '../reverse-dns/reverse-dns.service.ts';

export interface ReverseRecord {
  ip: string;
  rdns: string;
}

/** The address in its canonical text, so 2001:DB8::1 and 2001:db8:0::1 name the same one. */
function canonical(address: string): string {
  const text = address.trim().toLowerCase();
  if (!text.includes(':')) return text;
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return text;
  }
}

/** Where the reverse name of one of the server's addresses lives: its own pool row or a floating IP. */
type ReverseSlot =
  | { kind: 'own'; address: string; poolAddress: string; reverse: string | null }
  | { kind: 'floating'; address: string; floatingUuid: string; reverse: string | null };

async function reverseSlot(db: Queryable, server: ServerRow, ip: string | undefined): Promise<ReverseSlot> {
  const own = await serverRepository.publicAddresses(db, server.uuid);
  if (ip === undefined) {
    const primary = own.find((row) => row.version === 4) ?? own[0];
    if (!primary) throw new Invalid('server_id', 'bad value: the server holds no public address');
    return {
      kind: 'own',
      address: describeAllocated(primary).address,
      poolAddress: primary.address,
      reverse: primary.reverse,
    };
  }
  const wanted = canonical(ip);
  for (const row of own) {
    const shown = describeAllocated(row).address;
    if (canonical(shown) === wanted || canonical(row.address) === wanted)
      return { kind: 'own', address: shown, poolAddress: row.address, reverse: row.reverse };
  }
  for (const floating of await serverRepository.attachedFloatingIps(db, server.id)) {
    if (canonical(floating.address) === wanted)
      return { kind: 'floating', address: floating.address, floatingUuid: floating.uuid, reverse: floating.reverse };
  }
  throw new Invalid(
    'ip',
    "bad value: not one of the server's addresses (its public IPv4, its IPv6, or a floating IP attached to it)",
  );
}

/** The reverse name of the server's primary address (or of `ip`); its hostname until set. */
export async function getReverse(
  ctx: Platform,
  actor: Actor,
  ref: string | number,
  ip?: string,
): Promise<ReverseRecord> {
  const server = await findServer(ctx, ctx.db, actor.accountId, ref);
  const slot = await reverseSlot(ctx.db, server, ip);
  // What the PTR holds: an attached floating IP's, like the server's own, is its hostname until named.
  return { ip: slot.address, rdns: ptrName(slot, server) };
}

export async function setReverse(
  ctx: Platform,
  actor: Actor,
  ref: string | number,
  rdns: string,
  ip?: string,
): Promise<ReverseRecord> {
  requirePermission(actor, 'servers');
  const name = rdns.trim();
  const problem = hostnameProblem(name);
  if (problem) throw new Invalid('rdns', problem);
  // Forward confirmation is not asked for (docs/decisions.md, "reverse DNS"): the name is the customer's word.
  const record = await transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    const server = await findServer(ctx, trx, actor.accountId, ref, true);
    const slot = await reverseSlot(trx, server, ip);
    if (slot.kind === 'own') await serverRepository.setAddressReverse(trx, server.uuid, slot.poolAddress, name);
    else await floatingIpRepository.setReverse(trx, slot.floatingUuid, name);
    await queuePtr(ctx, trx, slot.address, name);
    return { ip: slot.address, rdns: name };
  });
  kickPtrPublishing(ctx);
  return record;
}

export interface OptionValue {
  name: string;
  /** Text, as options are set; the default when unset. */
  value: string;
}

export async function getOption(ctx: Platform, actor: Actor, ref: string | number, name: string): Promise<OptionValue> {
  const canonicalName = optionName(name);
  const server = await findServer(ctx, ctx.db, actor.accountId, ref);
  return { name: canonicalName, value: String(effectiveOptions(server.options)[canonicalName]) };
}

/** Sets an option, or unsets it (back to its default) when the value is the text null. */
export async function setOption(
  ctx: Platform,
  actor: Actor,
  ref: string | number,
  name: string,
  value: string | null,
): Promise<OptionValue> {
  requirePermission(actor, 'servers');
  const canonicalName = optionName(name);
  return transaction(ctx, async (trx) => {
    await lockAccount(ctx, trx, actor.accountId);
    const server = await findServer(ctx, trx, actor.accountId, ref, true);
    const options = withOption(server.options, canonicalName, value);
    // A new policy or threshold moves the overage point: due at the overage sweep.
    await serverRepository.update(trx, server.id, { options, updatedAt: ctx.clock.now() });
    await serverRepository.markOverageDue(trx, server.id);
    return { name: canonicalName, value: String(effectiveOptions(options)[canonicalName]) };
  });
}
