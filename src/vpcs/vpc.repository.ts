// Queries on VPCs and their members. A list reads the VPCs and their members' server uuids
// in two indexed queries, whatever the number of VPCs.

import type { Insertable } from 'kysely';
import type { DialectName, Queryable } from '../db/database.ts';
import type { Ref } from '../platform/ids.ts';
import type { VpcMemberTable, VpcRow, VpcTable } from './vpc.table.ts';
import { byRef } from '../db/by-ref.ts';

/** A VPC as create decides it; vpcRow makes its row. */
export interface NewVpc {
  uuid: string;
  accountId: number;
  regionId: number;
  name: string;
  /** Its private IPv4 range, e.g. 10.17.0.0/24. */
  cidr: string;
  createdAt: number;
}

/** A server joining a VPC with a private address of its range; memberRow makes its row. */
export interface NewMember {
  vpcId: number;
  serverId: number;
  address: string;
  joinedAt: number;
}

/** The one mapping of a new VPC to its row. */
function vpcRow(vpc: NewVpc): Insertable<VpcTable> {
  return {
    uuid: vpc.uuid,
    account_id: vpc.accountId,
    region_id: vpc.regionId,
    name: vpc.name,
    cidr: vpc.cidr,
    created_at: vpc.createdAt,
  };
}

/** The one mapping of a membership to its row. */
function memberRow(member: NewMember): Insertable<VpcMemberTable> {
  return {
    vpc_id: member.vpcId,
    server_id: member.serverId,
    address: member.address,
    created_at: member.joinedAt,
  };
}

export const vpcRepository = {
  /** The account's VPC; `lockOn` the PostgreSQL dialect takes a row lock, serialising membership changes. */
  findOwned(db: Queryable, accountId: number, ref: Ref, lockOn?: DialectName): Promise<VpcRow | undefined> {
    return db
      .selectFrom('vpcs')
      .selectAll()
      .where('account_id', '=', accountId)
      .where(byRef(ref))
      .$if(lockOn === 'postgres', (q) => q.forNoKeyUpdate())
      .executeTakeFirst();
  },

  /** Row lock on a VPC already found (PostgreSQL; SQLite serialises transactions). */
  async lock(db: Queryable, dialect: DialectName, vpcId: number): Promise<void> {
    if (dialect === 'postgres')
      await db.selectFrom('vpcs').select('id').where('id', '=', vpcId).forNoKeyUpdate().execute();
  },

  listByAccount(db: Queryable, accountId: number): Promise<VpcRow[]> {
    return db.selectFrom('vpcs').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
  },

  /** Server uuids of the members of the account's VPCs, in joining order. */
  memberUuidsOfAccount(db: Queryable, accountId: number): Promise<{ vpc_id: number; server_uuid: string }[]> {
    return db
      .selectFrom('vpc_members')
      .innerJoin('vpcs', 'vpcs.id', 'vpc_members.vpc_id')
      .innerJoin('servers', 'servers.id', 'vpc_members.server_id')
      .select(['vpc_members.vpc_id', 'servers.uuid as server_uuid'])
      .where('vpcs.account_id', '=', accountId)
      .orderBy('vpc_members.created_at')
      .orderBy('vpc_members.server_id')
      .execute();
  },

  async cidrsOfAccount(db: Queryable, accountId: number): Promise<string[]> {
    return (await db.selectFrom('vpcs').select('cidr').where('account_id', '=', accountId).execute()).map(
      (row) => row.cidr,
    );
  },

  insert(db: Queryable, vpc: NewVpc): Promise<VpcRow> {
    return db.insertInto('vpcs').values(vpcRow(vpc)).returningAll().executeTakeFirstOrThrow();
  },

  remove(db: Queryable, id: number) {
    return db.deleteFrom('vpcs').where('id', '=', id).execute();
  },

  async memberCount(db: Queryable, vpcId: number): Promise<number> {
    const row = await db
      .selectFrom('vpc_members')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('vpc_id', '=', vpcId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  },

  memberAddresses(db: Queryable, vpcId: number) {
    return db.selectFrom('vpc_members').select(['server_id', 'address']).where('vpc_id', '=', vpcId).execute();
  },

  addMember(db: Queryable, member: NewMember) {
    return db.insertInto('vpc_members').values(memberRow(member)).execute();
  },

  /** Removes the membership; false when the server was not a member. */
  async removeMember(db: Queryable, vpcId: number, serverId: number): Promise<boolean> {
    const result = await db
      .deleteFrom('vpc_members')
      .where('vpc_id', '=', vpcId)
      .where('server_id', '=', serverId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  },
};
