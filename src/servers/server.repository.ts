// Queries on servers and on what hangs off them: their public addresses, the floating IPs
// attached to them and their VPC memberships. Reads for a list fetch each table once.

import { type Compilable, type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import type { Database, DialectName, Queryable } from '../db/database.ts';
import { prepared, type PreparedQuery } from '../db/prepared.ts';
import {
  balanceFloor,
  insertOpeningItems,
  openedItemWidth,
  openingItemsInsert,
  countedItems,
  type OpeningItems,
} from '../billing/billing.repository.ts';
import { jsonTuples, objectsOf, ownColumns } from '../db/json-tuples.ts';
import type { Ref } from '../platform/ids.ts';
import type { FloatingIpRow } from '../floating-ips/floating-ip.table.ts';
import type { NewServerRow, ServerRow, ServerTable, ServerUpdate } from './server.table.ts';
import { byRef } from '../db/by-ref.ts';
import {
  type MonthReading,
  monthReadingsFrom,
  monthReadingsJson,
  type ReadingsOf,
} from '../compute/traffic.repository.ts';

/** A public address a server holds as its own (its primary interface), as the pool row has it. */
export interface HeldAddress {
  holder_uuid: string;
  pool: string;
  address: string;
  version: number;
  reverse: string | null;
}

export interface VpcMembership {
  server_id: number;
  address: string;
  cidr: string;
}

/** What a Server object shows of a row: its columns, listed once (ShownRow follows). */
const shownColumns = [
  'id',
  'uuid',
  'name',
  'hostname',
  'region_id',
  'image_id',
  'plan_id',
  'password_sealed',
  'ipv6_enabled',
  'ddos_protection',
  'backup_enabled',
  'script_url',
  'ssh_key_id',
  'power',
  'action',
  'action_until',
  'observed_power',
  'conditions',
  'rescue',
  'options',
  'script_outcome',
  'created_at',
] as const satisfies readonly (keyof ServerRow)[];

/** What a Server object shows of a row. */
export type ShownRow = Pick<ServerRow, (typeof shownColumns)[number]>;

const heldColumns = ['holder_uuid', 'pool', 'address', 'version', 'reverse'] as const;
const floatingColumns = ['server_id', 'uuid', 'address', 'version', 'netmask', 'gateway', 'reverse'] as const;
const membershipColumns = ['vpc_members.server_id', 'vpc_members.address', 'vpcs.cidr'] as const;
/** The names membershipColumns answer under. */
const membershipSelected = ['server_id', 'address', 'cidr'] as const;

type AttachedFloatingRow = Pick<FloatingIpRow, (typeof floatingColumns)[number]>;

/**
 * What a Server object shows of the servers in scope and of what hangs off them, and their
 * month's traffic readings: five JSON values in one row of one statement (db/json-tuples.ts).
 * One statement is one snapshot on either database, with no transaction to open and close, and
 * one round trip to PostgreSQL.
 */
interface ShownJson {
  servers: string | unknown[];
  held: string | unknown[];
  floating: string | unknown[];
  memberships: string | unknown[];
  traffic: string | unknown[];
}

/** One server read on SQLite: its columns, with ShownJson's other values (see shownOfServerJson). */
type ShownOneRow = ShownRow & Omit<ShownJson, 'servers'>;

const floatingSelected = ['id', ...floatingColumns] as const;
const membershipWithVpc = ['vpc_members.vpc_id', ...membershipColumns] as const;

/** Which rows of each table hanging off the servers in scope a ShownJson statement reads. */
interface AttachedFilters {
  held: (eb: ExpressionBuilder<Database, 'ip_addresses'>) => Expression<SqlBool>;
  floating: (eb: ExpressionBuilder<Database, 'floating_ips'>) => Expression<SqlBool>;
  memberships: (eb: ExpressionBuilder<Database, 'vpc_members' | 'vpcs'>) => Expression<SqlBool>;
  /** The month (its start) whose traffic is read, and the servers it is read for. */
  month: number;
  traffic: ReadingsOf;
}

/** ShownJson's values but `servers`: what hangs off the servers in scope, and their month's traffic. */
function attachedJson(db: Kysely<Database>, filters: AttachedFilters) {
  return [
    jsonTuples(db, db.selectFrom('ip_addresses').select(heldColumns).where(filters.held), heldColumns).as('held'),
    jsonTuples(db, db.selectFrom('floating_ips').select(floatingSelected).where(filters.floating), floatingSelected).as(
      'floating',
    ),
    jsonTuples(
      db,
      db
        .selectFrom('vpc_members')
        .innerJoin('vpcs', 'vpcs.id', 'vpc_members.vpc_id')
        .select(membershipWithVpc)
        .where(filters.memberships),
      ['vpc_id', ...membershipSelected],
    ).as('memberships'),
    monthReadingsJson(db, filters.month, filters.traffic).as('traffic'),
  ] as const;
}

/** What hangs off an account's servers, and their month's traffic: each table read once for all of them. */
function attachedToAccount(db: Kysely<Database>, month: number, accountId: number) {
  return attachedJson(db, {
    held: (eb) => eb.and([eb('account_id', '=', accountId), eb('holder_type', '=', 'server')]),
    floating: (eb) => eb.and([eb('account_id', '=', accountId), eb('server_id', 'is not', null)]),
    memberships: (eb) => eb('vpcs.account_id', '=', accountId),
    month,
    traffic: (eb) =>
      eb(
        'traffic_readings.server_uuid',
        'in',
        db.selectFrom('servers').select('uuid').where('account_id', '=', accountId),
      ),
  });
}

/** The account's servers and what hangs off them (server/list) on SQLite: ShownJson in one row. */
const shownOfAccountJson = prepared<[number, number], ShownJson>(2, (db, month, accountId) =>
  db.selectNoFrom([
    jsonTuples(db, db.selectFrom('servers').select(shownColumns).where('account_id', '=', accountId), shownColumns).as(
      'servers',
    ),
    ...attachedToAccount(db, month, accountId),
  ]),
);

/**
 * A server/list row on PostgreSQL: a server's columns, ShownJson's other values null; or, once,
 * the row of ShownJson's other values, its server columns null.
 */
type ShownListRow = ShownRow & Omit<ShownJson, 'servers'>;
const attachedNames = ['held', 'floating', 'memberships', 'traffic'] as const;

/**
 * The account's servers and what hangs off them (server/list) on PostgreSQL: the servers as rows,
 * then one row of what hangs off them. Building a thousand servers' JSON costs PostgreSQL three
 * times reading them as rows, and pg reads a thousand rows as fast as their JSON
 * (docs/benchmarks.md). What hangs off them comes last (`union all`, no window): PostgreSQL sends
 * the servers as it reads them and builds the rest while pg parses them, where a first row
 * carrying it waited for all of it. Still one statement, one snapshot. Rows come in no promised
 * order: the one whose `held` is not null (never null: an empty list at least) is the attached row.
 */
const shownOfAccountRows = prepared<[number, number], ShownListRow>(
  2,
  (db, month, accountId) =>
    db
      .selectFrom('servers')
      .select(shownColumns)
      .select(attachedNames.map((name) => sql<null>`null::json`.as(name)))
      .where('account_id', '=', accountId)
      .unionAll(
        db.selectNoFrom([
          ...shownColumns.map((column) => sql<null>`null`.as(column)),
          ...attachedToAccount(db, month, accountId),
        ]) as never,
      ) as unknown as Compilable<ShownListRow>,
);

/**
 * One of the account's servers (by id, or by uuid) and what hangs off it (server/info): the server
 * is found once and the rest read beside it (half the statement's cost of finding it for each).
 * No row when the account has no such server.
 */
function shownOfServerJson(by: 'id' | 'uuid') {
  return prepared<[number, number, number | string], ShownJson | ShownOneRow>(3, (db, month, accountId, ref) => {
    const server = { id: sql.ref<number>('s.id'), uuid: sql.ref<string>('s.uuid') };
    return db
      .selectFrom('servers as s')
      .where('s.account_id', '=', accountId)
      .where(`s.${by}`, '=', ref as never)
      .select(
        ownColumns(
          db,
          shownColumns.map((column) => `s.${column}`),
          'servers',
        ),
      )
      .select([
        ...attachedJson(db, {
          held: (eb) => eb('holder_uuid', '=', server.uuid),
          floating: (eb) => eb('server_id', '=', server.id),
          memberships: (eb) => eb('vpc_members.server_id', '=', server.id),
          month,
          traffic: (eb) => eb('traffic_readings.server_uuid', '=', server.uuid),
        }),
      ]) as unknown as Compilable<ShownJson | ShownOneRow>;
  });
}
const shownByIdJson = shownOfServerJson('id');
const shownByUuidJson = shownOfServerJson('uuid');

const serversOf = objectsOf<ShownRow>(shownColumns);
const heldOf = objectsOf<HeldAddress>(heldColumns);
const floatingOf = objectsOf<AttachedFloatingRow & { id: number }>(floatingSelected);
const membershipsOf = objectsOf<VpcMembership & { vpc_id: number }>(['vpc_id', ...membershipSelected]);

/** The servers in scope with what hangs off them, each list in the order a Server object shows it. */
export interface ShownServers {
  rows: ShownRow[];
  held: HeldAddress[];
  floating: AttachedFloatingRow[];
  memberships: VpcMembership[];
  /** The servers' traffic readings for the month asked for. */
  readings: MonthReading[];
}

// account/info counts running servers: compiled once.
const runningCount = prepared<[number, number], { count: number }>(2, (db, accountId, now) =>
  db
    .selectFrom('servers')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('account_id', '=', accountId)
    .where('power', '=', 'running')
    .where((eb) => eb.or([eb('action', 'is', null), eb('action_until', '<=', now)])),
);

// What create checks first, in one statement (one round trip, one snapshot on PostgreSQL).
const createChecks = prepared<[number, number], { servers_limit: number; count: number; balance_floor: number }>(
  2,
  (db, accountId, now) =>
    db
      .selectFrom('accounts')
      .select((eb) => [
        'servers_limit',
        eb
          .selectFrom('servers')
          .select((s) => s.fn.countAll<number>().as('count'))
          .where('servers.account_id', '=', accountId)
          .as('count'),
        balanceFloor(db, accountId, now).as('balance_floor'),
      ])
      .where('accounts.id', '=', accountId),
);

type Column = Exclude<keyof ServerTable, 'id'>;

/**
 * Every column but the id, in the order an insert binds them and the statements below name
 * them: the keys of an object typed by the table, so a column the table gains and this lacks
 * (or one it lost) fails type-checking.
 */
const serverColumns = Object.keys({
  uuid: true,
  account_id: true,
  name: true,
  hostname: true,
  region_id: true,
  image_id: true,
  plan_id: true,
  source_snapshot_uuid: true,
  password_sealed: true,
  ipv6_enabled: true,
  ddos_protection: true,
  backup_enabled: true,
  private_network: true,
  script_url: true,
  ssh_key_id: true,
  power: true,
  action: true,
  action_until: true,
  rescue: true,
  disk_generation: true,
  power_generation: true,
  options: true,
  rdns: true,
  engine_error: true,
  observed_power: true,
  observed_disk_generation: true,
  observed_power_generation: true,
  conditions: true,
  host: true,
  avoid_host: true,
  evacuated_from: true,
  script_outcome: true,
  throttled: true,
  overage_billed_month: true,
  overage_billed_gb: true,
  overage_due_at: true,
  overage_marks: true,
  created_at: true,
  updated_at: true,
} satisfies Record<Column, true>) as Column[];

/** A new server as create decides it; newServerRow makes its row. */
export interface NewServer {
  uuid: string;
  accountId: number;
  /** The label (the row's name). */
  label: string;
  hostname: string;
  regionId: number;
  imageId: number;
  planId: number;
  /** The snapshot it is made from (image_type snapshot), or null. */
  sourceSnapshotUuid: string | null;
  passwordSealed: string;
  ipv6: boolean;
  ddosProtection: boolean;
  autoBackups: boolean;
  /** True when it joins a VPC as it is made. */
  privateNetwork: boolean;
  scriptUrl: string | null;
  sshKeyId: number | null;
  /**
   * What recording the create intent answered (compute/machine-intents.ts's Provisioning, named
   * by its columns here: compute imports this module): the transition shown, the host where placed.
   */
  provisioning: Pick<ServerRow, 'power' | 'action' | 'action_until' | 'engine_error' | 'host'>;
  createdAt: number;
}

/** The one mapping of a new server to its row: its own values, and every other column as a server starts. */
function newServerRow(server: NewServer): Required<Omit<NewServerRow, 'id'>> {
  return {
    uuid: server.uuid,
    account_id: server.accountId,
    name: server.label,
    hostname: server.hostname,
    region_id: server.regionId,
    image_id: server.imageId,
    plan_id: server.planId,
    source_snapshot_uuid: server.sourceSnapshotUuid,
    password_sealed: server.passwordSealed,
    ipv6_enabled: server.ipv6 ? 1 : 0,
    ddos_protection: server.ddosProtection ? 1 : 0,
    backup_enabled: server.autoBackups ? 1 : 0,
    private_network: server.privateNetwork ? 1 : 0,
    script_url: server.scriptUrl,
    ssh_key_id: server.sshKeyId,
    power: server.provisioning.power,
    action: server.provisioning.action,
    action_until: server.provisioning.action_until,
    engine_error: server.provisioning.engine_error,
    host: server.provisioning.host,
    rescue: 0,
    disk_generation: 0,
    power_generation: 0,
    options: '{}',
    rdns: null,
    // The engine reports the status once it made the machine.
    observed_power: null,
    observed_disk_generation: null,
    observed_power_generation: null,
    conditions: null,
    avoid_host: null,
    evacuated_from: null,
    script_outcome: null,
    throttled: 0,
    overage_billed_month: null,
    overage_billed_gb: 0,
    // A new server is due at the overage sweep, which works out when to look again.
    overage_due_at: 0,
    overage_marks: 0,
    created_at: server.createdAt,
    updated_at: server.createdAt,
  };
}

// Every create inserts a server: prepared. The columns come back by name, not `returning *`, so
// a column added by a later migration cannot change the result of a statement a running
// instance has prepared on PostgreSQL.
const insertServer = prepared<unknown[], ServerRow>(serverColumns.length, (db, ...values) =>
  db
    .insertInto('servers')
    .values(Object.fromEntries(serverColumns.map((column, index) => [column, values[index]])) as NewServerRow)
    .returning(['id', ...serverColumns]),
);

// Every read of one server (server/info aside) finds it first: prepared, by each kind of reference.
const ownedById = prepared<[number, number], ServerRow>(2, (db, accountId, id) =>
  db
    .selectFrom('servers')
    .select(['id', ...serverColumns])
    .where('account_id', '=', accountId)
    .where('id', '=', id),
);
const ownedByUuid = prepared<[number, string], ServerRow>(2, (db, accountId, uuid) =>
  db
    .selectFrom('servers')
    .select(['id', ...serverColumns])
    .where('account_id', '=', accountId)
    .where('uuid', '=', uuid),
);

// PostgreSQL: a new server and the invoice items it opens in one statement (the items' insert in
// a WITH, beside the account's funds due mark), prepared for each number of items.
const withItemsByCount = new Map<number, PreparedQuery<unknown[], ServerRow>>();

function insertWithItems(count: number): PreparedQuery<unknown[], ServerRow> {
  let insert = withItemsByCount.get(count);
  if (!insert) {
    insert = prepared<unknown[], ServerRow>(serverColumns.length + count * openedItemWidth, (db, ...values) =>
      db
        .with('opened', (qc) => openingItemsInsert(qc, count, values.slice(serverColumns.length)).returning('id'))
        // The opened items put the account before the out-of-funds sweep (billing/funds-due.ts),
        // and are counted for invoice/list's total, in the update markFundsDue makes elsewhere.
        .with('funds_due', (qc) =>
          qc
            .updateTable('accounts')
            .set((eb) => ({ funds_due_at: 0, invoice_item_count: countedItems(eb, count) }))
            .where('id', '=', values[serverColumns.indexOf('account_id')] as number)
            .returning('id'),
        )
        .insertInto('servers')
        .values(Object.fromEntries(serverColumns.map((column, index) => [column, values[index]])) as NewServerRow)
        .returning(['id', ...serverColumns]),
    );
    withItemsByCount.set(count, insert);
  }
  return insert;
}

/**
 * A change of a server's settings by its account (backups on or off, its options); a field left
 * out keeps its column as it is. serverSettingsRow makes the update.
 */
export interface ServerSettingsChange {
  backupEnabled?: boolean;
  /** The options as stored: a JSON object (server-options.ts). */
  options?: string;
  updatedAt: number;
}

/** The one mapping of a settings change to the columns it sets. */
function serverSettingsRow(change: ServerSettingsChange): ServerUpdate {
  const row: ServerUpdate = {};
  if (change.backupEnabled !== undefined) row.backup_enabled = change.backupEnabled ? 1 : 0;
  if (change.options !== undefined) row.options = change.options;
  row.updated_at = change.updatedAt;
  return row;
}

export const serverRepository = {
  /** Inserts a new server, and opens its invoice items (`billed`): on PostgreSQL in one statement. */
  async insert(db: Queryable, dialect: DialectName, server: NewServer, billed: OpeningItems): Promise<ServerRow> {
    const row = newServerRow(server);
    const values = serverColumns.map((column) => row[column]);
    let inserted: ServerRow | undefined;
    if (dialect === 'postgres' && billed.count > 0) {
      inserted = await insertWithItems(billed.count).first(db, ...values, ...billed.values);
    } else {
      await insertOpeningItems(db, billed);
      inserted = await insertServer.first(db, ...values);
    }
    if (!inserted) throw new Error('the server insert returned no row');
    return inserted;
  },

  /** The account's server by id or uuid; `lock` takes a row lock (PostgreSQL) for a state change. */
  findOwned(db: Queryable, accountId: number, ref: Ref, lock = false): Promise<ServerRow | undefined> {
    if (!lock) return 'id' in ref ? ownedById.first(db, accountId, ref.id) : ownedByUuid.first(db, accountId, ref.uuid);
    return db
      .selectFrom('servers')
      .selectAll()
      .where('account_id', '=', accountId)
      .where(byRef(ref))
      .forNoKeyUpdate()
      .executeTakeFirst();
  },

  /**
   * The account's servers (or the one `ref` names) as a Server object shows them, with their own
   * addresses, attached floating IPs, VPC memberships and traffic readings for the month that
   * starts at `monthStart`, from one snapshot (see ShownJson).
   */
  async shownWithNetworks(
    db: Queryable,
    dialect: DialectName,
    accountId: number,
    monthStart: number,
    ref?: Ref,
  ): Promise<ShownServers> {
    if (!ref && dialect === 'postgres') {
      const rows: ShownListRow[] = await shownOfAccountRows.all(db, monthStart, accountId);
      const at = rows.findLastIndex((row) => row.held !== null);
      const attached = rows[at];
      if (!attached) throw new Error('server/list read no row of what hangs off the servers');
      rows.splice(at, 1);
      return {
        rows: rows.sort((x, y) => x.id - y.id),
        held: heldOf(attached.held),
        floating: floatingOf(attached.floating).sort((x, y) => x.id - y.id),
        memberships: membershipsOf(attached.memberships).sort((x, y) => x.vpc_id - y.vpc_id),
        readings: monthReadingsFrom(attached.traffic),
      };
    }
    const row = !ref
      ? await shownOfAccountJson.first(db, monthStart, accountId)
      : 'id' in ref
        ? await shownByIdJson.first(db, monthStart, accountId, ref.id)
        : await shownByUuidJson.first(db, monthStart, accountId, ref.uuid);
    if (!row) return { rows: [], held: [], floating: [], memberships: [], readings: [] };
    // The aggregates keep no order: sort here (servers and floating IPs by id, VPCs by id).
    return {
      // One server read on SQLite comes as the row's own columns (ownColumns): the row is the server.
      rows: 'servers' in row ? serversOf(row.servers).sort((x, y) => x.id - y.id) : [row],
      held: heldOf(row.held),
      floating: floatingOf(row.floating).sort((x, y) => x.id - y.id),
      memberships: membershipsOf(row.memberships).sort((x, y) => x.vpc_id - y.vpc_id),
      readings: monthReadingsFrom(row.traffic),
    };
  },

  /** The account's servers.limit, how many servers it has, and its balance floor at `now` (billing/ledger.ts). */
  async createChecks(
    db: Queryable,
    accountId: number,
    now: number,
  ): Promise<{ limit: number; count: number; balanceFloorMicros: number }> {
    const row = await createChecks.first(db, accountId, now);
    return {
      limit: Number(row?.servers_limit ?? 0),
      count: Number(row?.count ?? 0),
      balanceFloorMicros: Number(row?.balance_floor ?? 0),
    };
  },

  /** Servers that show `running` now: settled running with no transition under way. */
  async countRunning(db: Queryable, accountId: number, now: number): Promise<number> {
    return Number((await runningCount.first(db, accountId, now))?.count ?? 0);
  },

  /** The uuids of an account's servers (what a change of its egress policy reaches). */
  async uuidsOfAccount(db: Queryable, accountId: number): Promise<string[]> {
    const rows = await db.selectFrom('servers').select('uuid').where('account_id', '=', accountId).execute();
    return rows.map((row) => row.uuid);
  },

  async update(db: Queryable, id: number, change: ServerSettingsChange): Promise<ServerRow> {
    return db
      .updateTable('servers')
      .set(serverSettingsRow(change))
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  async delete(db: Queryable, id: number): Promise<void> {
    await db.deleteFrom('servers').where('id', '=', id).execute();
  },

  /**
   * Servers due at the overage sweep at `now` after the cursor (due time, then id), at most
   * `limit`: read through the due-time index, so the read costs what is due, not the fleet.
   */
  overageDue(db: Queryable, now: number, after: { dueAt: number; id: number }, limit: number): Promise<ServerRow[]> {
    return db
      .selectFrom('servers')
      .selectAll()
      .where('overage_due_at', '<=', now)
      .where((eb) =>
        eb.or([
          eb('overage_due_at', '>', after.dueAt),
          eb.and([eb('overage_due_at', '=', after.dueAt), eb('id', '>', after.id)]),
        ]),
      )
      .orderBy('overage_due_at')
      .orderBy('id')
      .limit(limit)
      .execute();
  },

  /** Servers with DDoS protection on in these regions (through the partial index of them). */
  async ddosProtectedIn(db: Queryable, regionIds: number[]): Promise<{ id: number; uuid: string }[]> {
    if (regionIds.length === 0) return [];
    return db
      .selectFrom('servers')
      .select(['id', 'uuid'])
      .where('ddos_protection', '=', 1)
      .where('region_id', 'in', regionIds)
      .execute();
  },

  /** Turns DDoS protection off; false when it was off already (another instance got there first). */
  async dropDdosProtection(db: Queryable, id: number): Promise<boolean> {
    const result = await db
      .updateTable('servers')
      .set({ ddos_protection: 0 })
      .where('id', '=', id)
      .where('ddos_protection', '=', 1)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  async markOverageDue(db: Queryable, serverId: number): Promise<void> {
    await db
      .updateTable('servers')
      .set((eb) => ({ overage_due_at: 0, overage_marks: eb('overage_marks', '+', 1) }))
      .where('id', '=', serverId)
      .execute();
  },

  /** When the sweep looks at the server next, unless it was marked due since the sweep read it (`marks`). */
  async setOverageDue(db: Queryable, serverId: number, marks: number, at: number | null): Promise<void> {
    await db
      .updateTable('servers')
      .set({ overage_due_at: at })
      .where('id', '=', serverId)
      .where('overage_marks', '=', marks)
      .execute();
  },

  /**
   * The account's server a floating IP or VPC attaches to, by id or uuid. On PostgreSQL with a
   * key-share lock: it cannot be deleted before the attachment that refers to it is written.
   */
  findAttachable(db: Queryable, dialect: DialectName, accountId: number, ref: Ref) {
    return db
      .selectFrom('servers')
      .select(['id', 'uuid', 'region_id', 'ipv6_enabled', 'hostname'])
      .where('account_id', '=', accountId)
      .where(byRef(ref))
      .$if(dialect === 'postgres', (q) => q.forKeyShare())
      .executeTakeFirst();
  },

  /** The server, read again and row-locked on PostgreSQL, if it is still settled running. */
  findRunningLocked(db: Queryable, dialect: DialectName, id: number): Promise<ServerRow | undefined> {
    let query = db.selectFrom('servers').selectAll().where('id', '=', id).where('power', '=', 'running');
    if (dialect === 'postgres') query = query.forNoKeyUpdate();
    return query.executeTakeFirst();
  },

  /** Sets the throttle flag if it is still `was` (another round may have set it); true when this one did. */
  async setThrottled(db: Queryable, id: number, was: number, throttled: number, now: number): Promise<boolean> {
    const changed = await db
      .updateTable('servers')
      .set({ throttled, updated_at: now })
      .where('id', '=', id)
      .where('throttled', '=', was)
      .executeTakeFirst();
    return Number(changed.numUpdatedRows) === 1;
  },

  /**
   * Moves the month's billed overage from what the round read (`read`) to `gb` in `month`;
   * true when this round's update landed (only that round bills).
   */
  async claimOverageBilling(
    db: Queryable,
    id: number,
    read: Pick<ServerRow, 'overage_billed_month' | 'overage_billed_gb'>,
    month: string,
    gb: number,
  ): Promise<boolean> {
    let claim = db
      .updateTable('servers')
      .set({ overage_billed_month: month, overage_billed_gb: gb })
      .where('id', '=', id);
    claim =
      read.overage_billed_month === month
        ? claim.where('overage_billed_month', '=', month).where('overage_billed_gb', '=', read.overage_billed_gb)
        : read.overage_billed_month === null
          ? claim.where('overage_billed_month', 'is', null)
          : claim.where('overage_billed_month', '=', read.overage_billed_month);
    return Number((await claim.executeTakeFirst()).numUpdatedRows) === 1;
  },

  /** The server's own public addresses (not floating IPs, which hold theirs). */
  publicAddresses(db: Queryable, serverUuid: string) {
    return db
      .selectFrom('ip_addresses')
      .select(['pool', 'address', 'version', 'holder_type', 'reverse'])
      .where('holder_uuid', '=', serverUuid)
      .orderBy('version')
      .execute();
  },

  /** The floating IPs attached to a server, in the order they were made. */
  attachedFloatingIps(db: Queryable, serverId: number): Promise<AttachedFloatingRow[]> {
    return db
      .selectFrom('floating_ips')
      .select(floatingColumns)
      .where('server_id', '=', serverId)
      .orderBy('id')
      .execute();
  },

  /** Sets the reverse name of one of the server's own addresses; false when it holds no such address. */
  async setAddressReverse(
    db: Queryable,
    serverUuid: string,
    poolAddress: string,
    reverse: string | null,
  ): Promise<boolean> {
    const result = await db
      .updateTable('ip_addresses')
      .set({ reverse })
      .where('holder_uuid', '=', serverUuid)
      .where('address', '=', poolAddress)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  },

  /** Detaches the server from every floating IP and VPC (before it is deleted). */
  async detachFromNetworks(db: Queryable, serverId: number): Promise<void> {
    await db.updateTable('floating_ips').set({ server_id: null }).where('server_id', '=', serverId).execute();
    await db.deleteFrom('vpc_members').where('server_id', '=', serverId).execute();
  },
};
