// Seeds a Nubis database with many stored rows (accounts, tokens, servers, invoice items) straight
// through SQL, so the benchmark can show that reads stay flat as storage grows. Volume only: the
// rows are well-formed but made without the services (going through the API would take minutes).

import { randomBytes, randomUUID } from 'node:crypto';
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
    // The credit and the final charges cancel out: the settled total is unchanged.
  });
  await storage.close();
}
