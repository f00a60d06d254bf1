// Joining a server to a VPC: a private address from the VPC's range. Used by vpc/attach and
// by server create with `vpc`; call inside the caller's transaction.

import type { Tx } from '../db/database.ts';
import type { Platform } from '../platform/context.ts';
import type { VpcRow } from './vpc.table.ts';
import { Conflict } from '../platform/errors.ts';

/** Adds the server to the VPC with the lowest free host address of its range; returns the address. */
export async function joinVpc(ctx: Platform, trx: Tx, vpc: VpcRow, serverId: number): Promise<string> {
  const [base, prefixText] = vpc.cidr.split('/');
  const prefix = Number(prefixText);
  const octets = base!.split('.').map(Number);
  const baseInt = ((octets[0]! << 24) >>> 0) + (octets[1]! << 16) + (octets[2]! << 8) + octets[3]!;
  const size = 2 ** (32 - prefix);
  const taken = new Set((await trx.selectFrom('vpc_members').select('address').where('vpc_id', '=', vpc.id).execute()).map((row) => row.address));
  // .0 is the network, .1 the VPC's gateway, the last the broadcast.
  for (let offset = 2; offset < size - 1; offset++) {
    const value = baseInt + offset;
    const address = [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
    if (taken.has(address)) continue;
    await trx.insertInto('vpc_members').values({ vpc_id: vpc.id, server_id: serverId, address, created_at: ctx.clock.now() }).execute();
    return address;
  }
  throw new Conflict(`VPC ${vpc.uuid} has no free private address left`);
}
