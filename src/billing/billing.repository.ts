// Queries on billing's tables: invoice items (opened, closed, listed, summed), transactions, the
// account's settled total, the out-of-funds marks and the servers they power off. Some are expressions rather than
// statements (openItemsJson, balanceFloor, openingItemsInsert) so that another repository can
// read or write them in its own statement: one statement is one snapshot on PostgreSQL.
//
// Lock order: every write here that changes what an account has is made by a caller holding
// the account lock (lockAccount) first; settled_micros is then the account row's only write.

import {
  type ExpressionBuilder,
  type Insertable,
  type Kysely,
  type QueryCreator,
  type RawBuilder,
  type Selectable,
  sql,
} from 'kysely';
import type { Database, DialectName, Queryable, Tx } from '../db/database.ts';
import { batches, maxBoundValues } from '../db/batches.ts';
import { jsonTuples, objectsOf } from '../db/json-tuples.ts';
import { prepared, type PreparedQuery } from '../db/prepared.ts';
import type { InvoiceItemRow, InvoiceItemTable, TransactionRow, TransactionTable } from './billing.table.ts';
import { HOUR_MS, type MeteredItem } from './metering.ts';
import type { PricedItem } from './pricing.ts';

/** The columns an opened item sets, in the order its insert binds them. */
const openedColumns = [
  'account_id',
  'resource_type',
  'resource_uuid',
  'description',
  'amount_hr_micros',
  'amount_mo_micros',
  'created_at',
  'prepaid_until',
] as const;
/** Values an opening item binds. */
export const openedItemWidth = openedColumns.length;

/** Items about to be opened: the values of their insert, in openedColumns order, item after item. */
export interface OpeningItems {
  count: number;
  values: unknown[];
}

/** A resource's items as billing starts them (paid up front until `prepaidUntil`, when given). */
export interface NewOpenItems {
  accountId: number;
  resourceUuid: string;
  items: readonly PricedItem[];
  openedAt: number;
  prepaidUntil: number | null;
}

/** The one mapping of items being opened to their insert's values (openedColumns' order). */
export function openingItemsOf(opening: NewOpenItems): OpeningItems {
  const values = opening.items.flatMap((item) => [
    opening.accountId,
    item.resourceType,
    opening.resourceUuid,
    item.description,
    item.amountHrMicros,
    item.amountMoMicros,
    opening.openedAt,
    opening.prepaidUntil,
  ]);
  return { count: opening.items.length, values };
}

/** A charge billed once: an item opened and closed at once, its price its whole charge (one-off-charge.ts). */
export interface NewOneOffItem {
  accountId: number;
  resourceType: string;
  resourceUuid: string;
  description: string;
  chargeMicros: number;
  openedAt: number;
  closedAt: number;
}

/** The one mapping of a one-off charge to its item row. */
function oneOffItemRow(item: NewOneOffItem): Required<Omit<Insertable<InvoiceItemTable>, 'id'>> {
  return {
    account_id: item.accountId,
    resource_type: item.resourceType,
    resource_uuid: item.resourceUuid,
    description: item.description,
    amount_hr_micros: item.chargeMicros,
    amount_mo_micros: item.chargeMicros,
    created_at: item.openedAt,
    removed_at: item.closedAt,
    prepaid_until: null,
    final_charge_micros: item.chargeMicros,
  };
}

/** Money moved in or out at once (an operator's credit, a commit charge): settled as it is recorded, no VAT. */
export interface NewSettledTransaction {
  accountId: number;
  ptype: string;
  amountMicros: number;
  note: string | null;
  settledAt: number;
}

/** The one mapping of a settled transaction to its row. */
function settledTransactionRow(entry: NewSettledTransaction): Insertable<TransactionTable> {
  return {
    account_id: entry.accountId,
    ptype: entry.ptype,
    pstatus: 'completed',
    amount_micros: entry.amountMicros,
    fee_micros: 0,
    taxrate_bp: 0,
    note: entry.note,
    settled_at: entry.settledAt,
    created_at: entry.settledAt,
    updated_at: entry.settledAt,
  };
}

// Every billable create opens its items in one insert, prepared for each number of items (a
// server opens one to four), so a create does not build and compile it anew.
const insertsByCount = new Map<number, PreparedQuery<unknown[], never>>();

/**
 * The insert of `count` opening items from `values` (real values or a prepared query's
 * placeholders): a statement of its own, or a part of a create's (server.repository.ts).
 */
export function openingItemsInsert(db: QueryCreator<Database>, count: number, values: readonly unknown[]) {
  return db.insertInto('invoice_items').values(
    Array.from({ length: count }, (_, item) => ({
      ...(Object.fromEntries(
        openedColumns.map((column, index) => [column, values[item * openedColumns.length + index]]),
      ) as Pick<InvoiceItemRow, (typeof openedColumns)[number]>),
      removed_at: null,
      final_charge_micros: null,
    })),
  );
}

/** Starts billing the items, leaving their events to the caller (openInvoiceItems records them). */
export async function insertOpeningItems(db: Queryable, opening: OpeningItems): Promise<void> {
  if (opening.count === 0) return;
  let insert = insertsByCount.get(opening.count);
  if (!insert) {
    insert = prepared<unknown[], never>(opening.count * openedColumns.length, (db, ...values) =>
      openingItemsInsert(db, opening.count, values),
    );
    insertsByCount.set(opening.count, insert);
  }
  await insert.run(db, ...opening.values);
  await markFundsDue(db, opening.values[0] as number, opening.count);
}

const itemColumns = [
  'created_at',
  'removed_at',
  'amount_hr_micros',
  'amount_mo_micros',
  'prepaid_until',
] as const satisfies readonly (keyof MeteredItem)[];

/**
 * The account's unfinalised items as one JSON value (read it with openItemsOf): a scalar that can
 * sit beside the account row in one statement, so the row is not repeated once per item.
 */
export function openItemsJson(db: Kysely<Database>, accountId: number): RawBuilder<string | unknown[]> {
  const open = db
    .selectFrom('invoice_items')
    .select(itemColumns)
    .where('account_id', '=', accountId)
    .where('final_charge_micros', 'is', null);
  return jsonTuples(db, open, itemColumns);
}

/** The items of an openItemsJson value (numbers arrive as JSON numbers from either database). */
export const openItemsOf = objectsOf<MeteredItem>(itemColumns);

/**
 * A floor under the account's balance at `now` that needs no metering: the settled total, less
 * every hour an unfinalised item has begun at its hourly price, without the monthly cap or the
 * hours paid up front (both only ever lower a charge). The database sums it over the open items,
 * so the funds check costs the same for an account with one server or a thousand, whatever its history; one expression, so it
 * can join the other reads of a create in one statement (one snapshot on PostgreSQL).
 */
export function balanceFloor(db: Kysely<Database>, accountId: number, now: number): RawBuilder<number> {
  // Bound numbers are REAL on SQLite: cast, so the hours below are integer divisions there too.
  const at = sql<number>`cast(${now} as bigint)`;
  const settled = db.selectFrom('accounts').select('settled_micros').where('id', '=', accountId);
  // An unfinalised item's every hour begun by now (metering's startedHours without removal):
  // ⌊(now − created_at) / 1 h⌋ + 1 once created. Closed items are in the settled total.
  const charged = db
    .selectFrom('invoice_items')
    .select(
      sql<number>`coalesce(sum(case
      when created_at <= ${at} then ((${at} - created_at) / ${sql.lit(HOUR_MS)} + 1) * amount_hr_micros
      else 0 end), 0)`.as('charged'),
    )
    .where('account_id', '=', accountId)
    .where('final_charge_micros', 'is', null);
  return sql<number>`coalesce((${settled}), 0) - ${charged}`;
}

const balanceFloorRow = prepared<[number, number], { balance_floor: number }>(2, (db, accountId, now) =>
  db.selectNoFrom(balanceFloor(db, accountId, now).as('balance_floor')),
);

/**
 * One statement, so PostgreSQL reads the settled total and the open items from one snapshot: with
 * two, an item closed in between would be counted in both (or in neither). The unfinalised items
 * (the open ones, and any removed without closeInvoiceItems) come as one JSON array; no row for
 * an unknown account.
 */
const ledgerRow = prepared<[number, number], { settled: number; items: string | unknown[] }>(
  2,
  (db, itemsAccountId, accountId) =>
    db
      .selectFrom('accounts')
      .where('id', '=', accountId)
      .select(['settled_micros as settled', openItemsJson(db, itemsAccountId).as('items')]),
);

const addToSettled = prepared<[number, number], never>(2, (db, delta, accountId) =>
  db
    .updateTable('accounts')
    // A changed ledger is due at the out-of-funds sweep (billing/funds-due.ts).
    .set((eb) => ({ settled_micros: eb('settled_micros', '+', delta), funds_due_at: 0 }))
    .where('id', '=', accountId),
);

const fundsDueNow = prepared<[number, number], never>(2, (db, opened, accountId) =>
  db
    .updateTable('accounts')
    .set((eb) => ({ funds_due_at: 0, invoice_item_count: eb('invoice_item_count', '+', opened) }))
    .where('id', '=', accountId),
);

/**
 * Puts the account before the out-of-funds sweep's next round: every write that can bring its
 * balance to zero sooner (an opened item, a charge) calls it in its transaction (funds-due.ts).
 * The same update counts the `opened` items it follows (invoice/list's total), so an insert of
 * items pays no statement of its own for it. The caller holds the account lock already (the lock
 * order: account first).
 */
export async function markFundsDue(db: Queryable, accountId: number, opened: number): Promise<void> {
  await fundsDueNow.run(db, opened, accountId);
}

/**
 * The account's invoice_item_count after `opened` more items, as a value of the update that
 * opens them in one statement with something else (server.repository.ts insertWithItems).
 */
export function countedItems(eb: ExpressionBuilder<Database, 'accounts'>, opened: number) {
  return eb('invoice_item_count', '+', opened);
}

const countOneTransaction = prepared<[number], never>(1, (db, accountId) =>
  db
    .updateTable('accounts')
    .set((eb) => ({ transaction_count: eb('transaction_count', '+', 1) }))
    .where('id', '=', accountId),
);

/** The account's rows a list shows a page of: invoice items and transactions. */
type AccountListed = 'invoice_items' | 'transactions';

/** A page of the account's rows, newest first: `limit` from `offset`. */
function newestOfAccount<T extends AccountListed>(
  db: Queryable,
  table: T,
  accountId: number,
  limit: number,
  offset: number,
): Promise<Selectable<Database[T]>[]> {
  return db
    .selectFrom(table as AccountListed)
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute() as Promise<Selectable<Database[T]>[]>;
}

const countColumn = { invoice_items: 'invoice_item_count', transactions: 'transaction_count' } as const;

/**
 * How many rows the account has in the list (the page's total): the count its row keeps, so the
 * read costs the same whatever the account's age (migration 0017). None for an unknown account.
 */
async function countOfAccount(db: Queryable, table: AccountListed, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select(`${countColumn[table]} as count`)
    .where('id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/**
 * Inserts a transaction and counts it on the account row (transaction/list's total), in the
 * caller's transaction: the one way into the transactions table.
 */
export async function insertTransactionRow(trx: Tx, row: Insertable<TransactionTable>): Promise<TransactionRow> {
  const inserted = await trx.insertInto('transactions').values(row).returningAll().executeTakeFirstOrThrow();
  await countOneTransaction.run(trx, row.account_id);
  return inserted;
}

export const billingRepository = {
  /** The settled total and unfinalised items of an account (none for an unknown one). */
  async ledger(db: Queryable, accountId: number): Promise<{ settled: number; items: MeteredItem[] }> {
    const row = await ledgerRow.first(db, accountId, accountId);
    return { settled: Number(row?.settled ?? 0), items: row ? openItemsOf(row.items) : [] };
  },

  /** The account's balance floor (see balanceFloor) at `now`, in micro-dollars. */
  async balanceFloor(db: Queryable, accountId: number, now: number): Promise<number> {
    const row = await balanceFloorRow.first(db, accountId, now);
    return Number(row?.balance_floor ?? 0);
  },

  /** Adds `deltaMicros` (negative for a charge) to the account's settled total. */
  async addSettled(trx: Tx, accountId: number, deltaMicros: number): Promise<void> {
    await addToSettled.run(trx, deltaMicros, accountId);
  },

  /** The resource's open items (only those of the given types, when given). */
  openItemsOfResource(trx: Tx, resourceUuid: string, types?: string[]): Promise<InvoiceItemRow[]> {
    let query = trx
      .selectFrom('invoice_items')
      .selectAll()
      .where('resource_uuid', '=', resourceUuid)
      .where('removed_at', 'is', null);
    if (types?.length) query = query.where('resource_type', 'in', types);
    return query.execute();
  },

  /** Closes the item with its final charge unless it is closed already; answers whether this closed it. */
  async closeItem(trx: Tx, id: number, at: number, finalChargeMicros: number): Promise<boolean> {
    const closed = await trx
      .updateTable('invoice_items')
      .set({ removed_at: at, final_charge_micros: finalChargeMicros })
      .where('id', '=', id)
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    return Number(closed.numUpdatedRows) === 1;
  },

  async insertOneOffItem(trx: Tx, item: NewOneOffItem): Promise<void> {
    await trx.insertInto('invoice_items').values(oneOffItemRow(item)).execute();
    await markFundsDue(trx, item.accountId, 1);
  },

  /** The account's items newest first, `limit` from `offset`. */
  itemsPage(db: Queryable, accountId: number, limit: number, offset: number): Promise<InvoiceItemRow[]> {
    return newestOfAccount(db, 'invoice_items', accountId, limit, offset);
  },

  itemCount(db: Queryable, accountId: number): Promise<number> {
    return countOfAccount(db, 'invoice_items', accountId);
  },

  /** Final charges of the items removed by `at`, summed by the database per resource type. */
  settledChargesBefore(db: Queryable, accountId: number, at: number) {
    return db
      .selectFrom('invoice_items')
      .select((eb) => ['resource_type', eb.fn.sum<number>('final_charge_micros').as('total')])
      .where('account_id', '=', accountId)
      .where('final_charge_micros', 'is not', null)
      .where('removed_at', '<=', at)
      .groupBy('resource_type')
      .execute();
  },

  /** The items billed at some time in [from, to) that settledChargesBefore(from) has not summed. */
  itemsOverlapping(db: Queryable, accountId: number, from: number, to: number) {
    return db
      .selectFrom('invoice_items')
      .select(['resource_type', 'created_at', 'removed_at', 'amount_hr_micros', 'amount_mo_micros', 'prepaid_until'])
      .where('account_id', '=', accountId)
      .where('created_at', '<', to)
      .where((eb) => eb.or([eb('final_charge_micros', 'is', null), eb('removed_at', '>', from)]))
      .execute();
  },

  insertSettledTransaction(trx: Tx, entry: NewSettledTransaction): Promise<TransactionRow> {
    return insertTransactionRow(trx, settledTransactionRow(entry));
  },

  /** The account's transactions newest first, at most `limit`. */
  transactionsPage(db: Queryable, accountId: number, limit: number): Promise<TransactionRow[]> {
    return newestOfAccount(db, 'transactions', accountId, limit, 0);
  },

  transactionCount(db: Queryable, accountId: number): Promise<number> {
    return countOfAccount(db, 'transactions', accountId);
  },

  /** Accounts marked out of funds. */
  async markedOutOfFunds(db: Queryable): Promise<number[]> {
    const rows = await db.selectFrom('account_funds').select('account_id').execute();
    return rows.map((row) => row.account_id);
  },

  async isMarkedOutOfFunds(trx: Tx, accountId: number): Promise<boolean> {
    const marked = await trx
      .selectFrom('account_funds')
      .select('account_id')
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return marked !== undefined;
  },

  /** Accounts with an open item and no out-of-funds mark: the only ones whose balance can reach zero. */
  async billedUnmarked(db: Queryable): Promise<number[]> {
    const rows = await db
      .selectFrom('invoice_items')
      .select('account_id')
      .distinct()
      .where('removed_at', 'is', null)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('account_funds')
              .select('account_funds.account_id')
              .whereRef('account_funds.account_id', '=', 'invoice_items.account_id'),
          ),
        ),
      )
      .execute();
    return rows.map((row) => row.account_id);
  },

  /** Marks the account out of funds unless it is already; answers whether this call marked it. */
  async markOutOfFunds(trx: Tx, accountId: number, since: number): Promise<boolean> {
    const won = await trx
      .insertInto('account_funds')
      .values({ account_id: accountId, out_of_funds_since: since })
      .onConflict((oc) => oc.column('account_id').doNothing())
      .returning('account_id')
      .executeTakeFirst();
    return won !== undefined;
  },

  /**
   * Accounts whose funds are due at `now` (funds-due.ts), longest due first, at most `limit`: read
   * through the due-time index, so the read costs what is due, not the number of accounts.
   */
  async fundsDue(db: Queryable, now: number, limit: number): Promise<number[]> {
    const rows = await db
      .selectFrom('accounts')
      .select('id')
      .where('funds_due_at', '<=', now)
      .orderBy('funds_due_at')
      .limit(limit)
      .execute();
    return rows.map((row) => row.id);
  },

  /** When the out-of-funds sweep looks at the account next (null: not until its ledger changes). */
  async setFundsDue(trx: Tx, accountId: number, at: number | null): Promise<void> {
    await trx.updateTable('accounts').set({ funds_due_at: at }).where('id', '=', accountId).execute();
  },

  async unmarkOutOfFunds(trx: Tx, accountId: number): Promise<void> {
    await trx.deleteFrom('account_funds').where('account_id', '=', accountId).execute();
  },

  /**
   * The running servers of one account, or of every out-of-funds account with null. On
   * PostgreSQL a server another transaction holds is skipped (left for the next round). With
   * null the marked accounts are read first and their servers through the account index: a
   * subquery in the servers' read walked every server (SQLite's plan).
   */
  async runningServers(dialect: DialectName, trx: Tx, accountId: number | null) {
    const accounts = accountId === null ? await this.markedOutOfFunds(trx) : [accountId];
    const running: Selectable<Database['servers']>[] = [];
    for (const batch of batches(accounts, maxBoundValues)) {
      let query = trx.selectFrom('servers').selectAll().where('power', '=', 'running').where('account_id', 'in', batch);
      if (dialect === 'postgres') query = query.forNoKeyUpdate().skipLocked();
      running.push(...(await query.execute()));
    }
    return running;
  },
};
