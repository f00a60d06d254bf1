// Seeds a Nubis database with many stored rows (accounts, tokens, servers, invoice items) straight
// through SQL, so the benchmark can show that reads stay flat as storage grows. Volume only: the
// rows are well-formed but made without the services (going through the API would take minutes).

import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Config } from '../src/config.ts';
import { prepareStorage } from '../src/instance.ts';
import { createSecrets, loadServerKey } from '../src/platform/secrets.ts';

export async function seed(config: Config, servers: number): Promise<void> {
  const log = { info() {}, warn() {}, error() {} };
  const storage = await prepareStorage(config, log);
  const secrets = createSecrets(loadServerKey(config.secretKey, config.dataDir), config.passwordHashCost);
  const sealedPassword = secrets.encrypt('seeded-root-password');
  const passwordHash = await secrets.hashPassword('seeded password');
  const now = Date.now();
  const perAccount = 100;
  const accounts = Math.max(1, Math.ceil(servers / perAccount));
  const batch = 500;
  for (let first = 0; first < accounts; first += batch) {
    await storage.db.transaction().execute(async (trx) => {
      const rows = Array.from({ length: Math.min(batch, accounts - first) }, () => ({
        uuid: randomUUID(),
        email: `seed-${randomBytes(8).toString('hex')}@example.com`,
        password_hash: passwordHash,
        temp_password_hash: null,
        temp_password_expires_at: null,
        firstname: 'Seed',
        lastname: 'Account',
        country: 'NL',
        activation_uuid: randomUUID(),
        servers_limit: perAccount,
        created_at: now,
        updated_at: now,
        last_login_at: now,
      }));
      const inserted = await trx.insertInto('accounts').values(rows).returning('id').execute();
      const serverRows = inserted.flatMap(({ id }) =>
        Array.from({ length: perAccount }, (_, i) => ({
          uuid: randomUUID(),
          account_id: id,
          name: `seed ${i}`,
          hostname: `seed-${i}.example.com`,
          region_id: 101,
          image_id: 1001,
          plan_id: 1,
          source_snapshot_uuid: null,
          password_sealed: sealedPassword,
          ipv6_enabled: 0,
          ddos_protection: 0,
          backup_enabled: 0,
          private_network: 0,
          script_url: null,
          ssh_key_id: null,
          power: 'running',
          action: null,
          action_until: null,
          rescue: 0,
          options: '{}',
          rdns: null,
          created_at: now,
          updated_at: now,
        })),
      );
      // SQLite binds at most 32k parameters a statement: insert in slices.
      for (let i = 0; i < serverRows.length; i += 1000)
        await trx
          .insertInto('servers')
          .values(serverRows.slice(i, i + 1000))
          .execute();
      const tokenRows = inserted.map(({ id }) => {
        const token = randomBytes(32).toString('hex');
        return {
          uuid: randomUUID(),
          account_id: id,
          name: 'seed',
          digest: secrets.tokenDigest(token),
          sealed: secrets.encrypt(token),
          created_at: now,
        };
      });
      await trx.insertInto('tokens').values(tokenRows).execute();
    });
  }
  await storage.close();
}

/**
 * Gives an account a long history: `items` invoice items, each open for an hour and closed with
 * its final charge, and a credit that pays for them, written the way the services write them
 * (the settled total on the account row moves with each).
 */
/** `items` closed invoice items of the account, their events, and a backup event of another server for every fifth. */
export async function seedHistory(config: Config, accountId: number, items: number): Promise<void> {
  const log = { info() {}, warn() {}, error() {} };
  const storage = await prepareStorage(config, log);
  const hour = 3_600_000;
  const start = Date.now() - (items + 1) * hour;
  const charge = 1_000;
  await storage.db.transaction().execute(async (trx) => {
    for (let first = 0; first < items; first += 1000) {
      const rows = Array.from({ length: Math.min(1000, items - first) }, (_, i) => ({
        account_id: accountId,
        resource_type: 'server',
        resource_uuid: randomUUID(),
        description: 'seeded history',
        amount_hr_micros: charge,
        amount_mo_micros: 730 * charge,
        created_at: start + (first + i) * hour,
        removed_at: start + (first + i + 1) * hour,
        prepaid_until: null,
        final_charge_micros: charge,
      }));
      await trx.insertInto('invoice_items').values(rows).execute();
      // What the event log holds of that history: each item's closing, and for every fifth a
      // backup of some other server (server activity must not read through either).
      await trx
        .insertInto('events')
        .values(
          rows.flatMap((row, i) => [
            {
              account_id: accountId,
              type: 'invoice_item.closed',
              resource_type: 'invoice_item',
              resource_uuid: row.resource_uuid,
              data: '{}',
              occurred_at: row.removed_at,
              cause: 'sweep',
            },
            ...(i % 5 === 0
              ? [
                  {
                    account_id: accountId,
                    type: 'backup.created',
                    resource_type: 'backup',
                    resource_uuid: randomUUID(),
                    data: JSON.stringify({ name: 'seeded backup', server: randomUUID() }),
                    occurred_at: row.created_at,
                    cause: 'sweep',
                  },
                ]
              : []),
          ]),
        )
        .execute();
    }
    const credit = items * charge;
    await trx
      .insertInto('transactions')
      .values({
        account_id: accountId,
        ptype: 'credit',
        pstatus: 'completed',
        amount_micros: credit,
        fee_micros: 0,
        taxrate_bp: 0,
        note: 'seeded history',
        created_at: start,
        updated_at: start,
      })
      .execute();
    // The credit and the final charges cancel out: the settled total is unchanged. The lists'
    // totals are kept on the account row, as every insert of the services keeps them.
    await trx
      .updateTable('accounts')
      .set((eb) => ({
        invoice_item_count: eb('invoice_item_count', '+', items),
        transaction_count: eb('transaction_count', '+', 1),
      }))
      .where('id', '=', accountId)
      .execute();
  });
  await storage.close();
}

/** Where the floor's accounts live: a SQLite file or a PostgreSQL URL (bench/floor-server.ts). */
export type FloorTarget = { sqliteFile: string } | { postgresUrl: string };

/**
 * Seeds the floor's database: `accounts` accounts, each with one token (its HMAC-SHA256 digest
 * under `key`) and `body` (with its own id) stored as JSON text. Answers one account's token.
 */
export async function seedFloor(target: FloorTarget, key: Buffer, body: object, accounts = 10_000): Promise<string> {
  const rows = Array.from({ length: accounts }, (_, i) => {
    const token = randomBytes(32).toString('hex');
    return {
      id: i + 1,
      token,
      digest: createHmac('sha256', key).update(token).digest('hex'),
      body: JSON.stringify({ ...body, id: i + 1, uuid: randomUUID() }),
    };
  });
  const schema = [
    'create table floor_accounts (id integer primary key, body text not null)',
    'create table floor_tokens (digest text primary key, account_id integer not null references floor_accounts (id))',
  ];
  if ('sqliteFile' in target) {
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(target.sqliteFile);
    db.exec('pragma journal_mode = wal');
    for (const statement of schema) db.exec(statement);
    const account = db.prepare('insert into floor_accounts (id, body) values (?, ?)');
    const token = db.prepare('insert into floor_tokens (digest, account_id) values (?, ?)');
    db.exec('begin');
    for (const row of rows) {
      account.run(row.id, row.body);
      token.run(row.digest, row.id);
    }
    db.exec('commit');
    db.close();
  } else {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: target.postgresUrl });
    await client.connect();
    for (const statement of schema) await client.query(statement);
    for (let first = 0; first < rows.length; first += 1000) {
      const slice = rows.slice(first, first + 1000);
      await client.query('insert into floor_accounts (id, body) select * from unnest($1::int[], $2::text[])', [
        slice.map((row) => row.id),
        slice.map((row) => row.body),
      ]);
      await client.query('insert into floor_tokens (digest, account_id) select * from unnest($1::text[], $2::int[])', [
        slice.map((row) => row.digest),
        slice.map((row) => row.id),
      ]);
    }
    await client.query('analyze floor_accounts; analyze floor_tokens');
    await client.end();
  }
  return rows[Math.floor(accounts / 2)]!.token;
}
