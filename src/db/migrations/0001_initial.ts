// The initial schema. Timestamps are integer milliseconds of the clock (bigint), money is
// integer micro-dollars (bigint), flags are integers 0/1: the same on both dialects.

import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import { withId } from './column-types.ts';

export function initial(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db.schema.createTable('accounts'), dialect)
        .addColumn('uuid', 'text', (c) => c.notNull().unique())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('temp_password_hash', 'text')
        .addColumn('temp_password_expires_at', 'bigint')
        .addColumn('firstname', 'text', (c) => c.notNull())
        .addColumn('lastname', 'text', (c) => c.notNull())
        .addColumn('country', 'text', (c) => c.notNull())
        .addColumn('dark_mode', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('account_type', 'text', (c) => c.notNull().defaultTo('personal'))
        .addColumn('activated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('activation_uuid', 'text', (c) => c.notNull().unique())
        .addColumn('smtp', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('blocked', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('servers_limit', 'integer', (c) => c.notNull())
        .addColumn('permissions', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('referrals_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('referrals_amount_micros', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('last_login_at', 'bigint')
        .execute();

      await withId(db.schema.createTable('account_activity'), dialect)
        .addColumn('account_id', 'integer', (c) => c.references('accounts.id').onDelete('cascade'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('ip_address', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('account_activity_account')
        .on('account_activity')
        .columns(['account_id', 'id'])
        .execute();

      await withId(db.schema.createTable('tokens'), dialect)
        .addColumn('uuid', 'text', (c) => c.notNull().unique())
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('digest', 'text', (c) => c.notNull().unique())
        .addColumn('sealed', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .execute();
      await db.schema.createIndex('tokens_account').on('tokens').columns(['account_id', 'id']).execute();

      await withId(db.schema.createTable('mail_outbox'), dialect)
        .addColumn('to_address', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('delivered_at', 'bigint')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'bigint')
        .addColumn('last_error', 'text')
        .execute();
      await db.schema.createIndex('mail_outbox_to').on('mail_outbox').columns(['to_address', 'id']).execute();
      await db.schema.createIndex('mail_outbox_pending').on('mail_outbox').columns(['next_attempt_at']).execute();

      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .execute();

      await withId(db.schema.createTable('transactions'), dialect)
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('ptype', 'text', (c) => c.notNull())
        .addColumn('pstatus', 'text', (c) => c.notNull())
        .addColumn('amount_micros', 'bigint', (c) => c.notNull())
        .addColumn('fee_micros', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('taxrate_bp', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('note', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('transactions_account').on('transactions').columns(['account_id', 'id']).execute();

      await withId(db.schema.createTable('invoice_items'), dialect)
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('resource_type', 'text', (c) => c.notNull())
        .addColumn('resource_uuid', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('amount_hr_micros', 'bigint', (c) => c.notNull())
        .addColumn('amount_mo_micros', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('removed_at', 'bigint')
        .addColumn('prepaid_until', 'bigint')
        .execute();
      await db.schema.createIndex('invoice_items_account').on('invoice_items').columns(['account_id', 'id']).execute();
      await db.schema.createIndex('invoice_items_resource').on('invoice_items').columns(['resource_uuid']).execute();

      await withId(db.schema.createTable('ssh_keys'), dialect)
        .addColumn('uuid', 'text', (c) => c.notNull().unique())
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('public_key', 'text', (c) => c.notNull())
        .addColumn('key_type', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('ssh_keys_account_fingerprint', ['account_id', 'fingerprint'])
        .execute();

      await withId(db.schema.createTable('servers'), dialect)
        .addColumn('uuid', 'text', (c) => c.notNull().unique())
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('hostname', 'text', (c) => c.notNull())
        .addColumn('region_id', 'integer', (c) => c.notNull())
        .addColumn('image_id', 'integer', (c) => c.notNull())
        .addColumn('plan_id', 'integer', (c) => c.notNull())
        .addColumn('source_snapshot_uuid', 'text')
        .addColumn('password_sealed', 'text', (c) => c.notNull())
        .addColumn('ipv6_enabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('ddos_protection', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('backup_enabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('private_network', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('script_url', 'text')
        .addColumn('ssh_key_id', 'integer', (c) => c.references('ssh_keys.id').onDelete('set null'))
        .addColumn('power', 'text', (c) => c.notNull())
        .addColumn('action', 'text')
        .addColumn('action_until', 'bigint')
        .addColumn('rescue', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('options', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('rdns', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('servers_account').on('servers').columns(['account_id', 'id']).execute();
      await db.schema.createIndex('servers_backups').on('servers').columns(['backup_enabled']).execute();

      await withId(db.schema.createTable('ip_addresses'), dialect)
        .addColumn('pool', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('region_id', 'integer', (c) => c.notNull())
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('holder_type', 'text', (c) => c.notNull())
        .addColumn('holder_uuid', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('ip_addresses_pool_address', ['pool', 'address'])
        .execute();
      await db.schema.createIndex('ip_addresses_holder').on('ip_addresses').columns(['holder_uuid']).execute();

      await withId(db.schema.createTable('snapshots'), dialect)
        .addColumn('uuid', 'text', (c) => c.notNull().unique())
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('server_uuid', 'text', (c) => c.notNull())
        .addColumn('region_id', 'integer', (c) => c.notNull())
        .addColumn('image_id', 'integer', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('size_gb', 'integer', (c) => c.notNull())
        .addColumn('ready_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint')
        .addColumn('backup_slot', 'integer')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('snapshots_backup_slot', ['server_uuid', 'backup_slot'])
        .execute();
      await db.schema.createIndex('snapshots_account').on('snapshots').columns(['account_id', 'id']).execute();

      await withId(db.schema.createTable('floating_ips'), dialect)
        .addColumn('uuid', 'text', (c) => c.notNull().unique())
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('region_id', 'integer', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('prefix', 'integer', (c) => c.notNull())
        .addColumn('netmask', 'text', (c) => c.notNull())
        .addColumn('gateway', 'text', (c) => c.notNull())
        .addColumn('reverse', 'text')
        .addColumn('server_id', 'integer', (c) => c.references('servers.id').onDelete('set null'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('floating_ips_account').on('floating_ips').columns(['account_id', 'id']).execute();
      await db.schema.createIndex('floating_ips_server').on('floating_ips').columns(['server_id']).execute();

      await withId(db.schema.createTable('vpcs'), dialect)
        .addColumn('uuid', 'text', (c) => c.notNull().unique())
        .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('region_id', 'integer', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('cidr', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('vpcs_account').on('vpcs').columns(['account_id', 'id']).execute();

      await db.schema
        .createTable('vpc_members')
        .addColumn('vpc_id', 'integer', (c) => c.notNull().references('vpcs.id').onDelete('cascade'))
        .addColumn('server_id', 'integer', (c) => c.notNull().references('servers.id').onDelete('cascade'))
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('vpc_members_pk', ['vpc_id', 'server_id'])
        .addUniqueConstraint('vpc_members_address', ['vpc_id', 'address'])
        .execute();
      await db.schema.createIndex('vpc_members_server').on('vpc_members').columns(['server_id']).execute();
    },
  };
}
