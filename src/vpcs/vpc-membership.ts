// Joining a server to a VPC: a private address from the VPC's range. Used by vpc/attach and
// by server create with `vpc`; call inside the caller's transaction.

import type { Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import type { VpcRow } from './vpc.table.ts';
import { Conflict } from '../platform/errors.ts';
import { vpcRepository } from './vpc.repository.ts';
import { hostAddresses } from './private-range.ts';

/**
 * Adds the server to the VPC with the lowest free host address of its range and returns the
 * address; a server already in the VPC keeps (and gets back) its address. The caller checks
 * that the server is the account's and in the VPC's region. The VPC row is locked first, so
 * concurrent joins never pick the same address and a removal cannot slip in between.
 */
export async function joinVpc(ctx: Platform, trx: Tx, vpc: VpcRow, serverId: number): Promise<string> {
  await vpcRepository.lock(trx, ctx.dialect, vpc.id);
  const members = await vpcRepository.memberAddresses(trx, vpc.id);
  const existing = members.find((member) => member.server_id === serverId);
  if (existing) return existing.address;
  const taken = new Set(members.map((member) => member.address));
  for (const address of hostAddresses(vpc.cidr)) {
    if (taken.has(address)) continue;
    await vpcRepository.addMember(trx, { vpcId: vpc.id, serverId, address, joinedAt: ctx.clock.now() });
    return address;
  }
  throw new Conflict(`VPC ${vpc.uuid} has no free private address left in ${vpc.cidr}`);
}

/** Takes the server out of the VPC; false when it was not a member. */
export function leaveVpc(trx: Tx, vpc: VpcRow, serverId: number): Promise<boolean> {
  return vpcRepository.removeMember(trx, vpc.id, serverId);
}
