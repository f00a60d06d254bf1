// The whole schema as Kysely sees it: one interface naming every table and its row type.

import type { Kysely, Transaction } from 'kysely';
import type { AccountActivityTable, AccountTable } from '../accounts/account.table.ts';
import type { TokenTable } from '../tokens/token.table.ts';
import type { MailTable } from '../mail/mail.table.ts';
import type { PtrOutboxTable } from '../reverse-dns/ptr-outbox.table.ts';
import type { SettingTable } from '../settings/setting.table.ts';
import type {
  AccountFundsTable,
  InvoiceDocumentTable,
  InvoiceItemTable,
  PaymentEventTable,
  TransactionTable,
} from '../billing/billing.table.ts';
import type { ServerTable } from '../servers/server.table.ts';
import type { HostTable } from '../hosts/host.table.ts';
import type { IpAddressTable } from '../network/ip-address.table.ts';
import type { SnapshotTable } from '../snapshots/snapshot.table.ts';
import type { FloatingIpTable } from '../floating-ips/floating-ip.table.ts';
import type { VpcMemberTable, VpcTable } from '../vpcs/vpc.table.ts';
import type { SshKeyTable } from '../ssh-keys/ssh-key.table.ts';
import type { FaultRuleTable } from '../faults/fault.table.ts';
import type { SavedStateTable } from '../state/saved-state.table.ts';
import type { OperatorAuditTable } from '../audit/audit.table.ts';
import type { ComputeJobTable } from '../compute/compute-job.table.ts';
import type { ServerMetricSampleTable } from '../server-metrics/server-metric.table.ts';
import type { TrafficMonthTable, TrafficReadingTable } from '../compute/traffic.table.ts';
import type {
  EventScheduleTable,
  EventTable,
  ServerImageTable,
  WebhookDeliveryTable,
  WebhookTable,
} from '../events/event.table.ts';

export interface Database {
  accounts: AccountTable;
  account_activity: AccountActivityTable;
  tokens: TokenTable;
  mail_outbox: MailTable;
  ptr_outbox: PtrOutboxTable;
  settings: SettingTable;
  transactions: TransactionTable;
  invoice_items: InvoiceItemTable;
  account_funds: AccountFundsTable;
  payment_events: PaymentEventTable;
  invoice_documents: InvoiceDocumentTable;
  servers: ServerTable;
  hosts: HostTable;
  ip_addresses: IpAddressTable;
  snapshots: SnapshotTable;
  floating_ips: FloatingIpTable;
  vpcs: VpcTable;
  vpc_members: VpcMemberTable;
  ssh_keys: SshKeyTable;
  fault_rules: FaultRuleTable;
  saved_states: SavedStateTable;
  operator_audit: OperatorAuditTable;
  compute_jobs: ComputeJobTable;
  traffic_readings: TrafficReadingTable;
  traffic_months: TrafficMonthTable;
  events: EventTable;
  server_images: ServerImageTable;
  event_schedule: EventScheduleTable;
  webhooks: WebhookTable;
  webhook_deliveries: WebhookDeliveryTable;
  server_metric_samples: ServerMetricSampleTable;
}

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the database or a transaction on it: repositories take this so callers choose. */
export type Queryable = Kysely<Database> | Transaction<Database>;
export type DialectName = 'sqlite' | 'postgres';
