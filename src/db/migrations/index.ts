// The ordered migration set. Names sort in the order they run; add a file, never edit one that has shipped.

import type { Migration, MigrationProvider } from 'kysely';
import type { DialectName } from '../database.ts';
import { initial } from './0001_initial.ts';
import { billing } from './0003_billing.ts';
import { vpcRanges } from './0004_vpc_ranges.ts';
import { serverAddresses } from './0005_server_addresses.ts';
import { balanceFloorIndex } from './0006_balance_floor_index.ts';
import { settledBalance } from './0007_settled_balance.ts';
import { operatorAudit } from './0009_operator_audit.ts';
import { faultRulesAndSavedStates } from './0010a_fault_rules_and_saved_states.ts';
import { computeJobs } from './0008_compute_jobs.ts';
import { eventsAndWebhooks } from './0010b_events_and_webhooks.ts';
import { computeFaultRules } from './0010c_compute_fault_rules.ts';
import { eventCause } from './0014_event_cause.ts';
import { networkPolicy } from './0012_network_policy.ts';
import { payments } from './0013_payments.ts';
import { serverMetrics } from './0014_server_metrics.ts';
import { computeSeam } from './0011_compute_seam.ts';
import { serverImages } from './0015_server_images.ts';
import { ptrOutbox } from './0016_rdns_ptr_outbox.ts';
import { dueTimes } from './0016_fleet_perf_due_times.ts';
import { serverStatus } from './0016_failure-truth_server_status.ts';
import { ddosIndex } from './0018_withdrawn-options_ddos_index.ts';
import { accountCounts } from './0017_list-totals_account_counts.ts';
import { awaitingScript } from './0018_engine-events_awaiting_script.ts';
import { clusterHosts } from './0018_cluster-hosts_hosts.ts';
import { hostWorkFailure } from './0019_host-work_failure.ts';

export function migrations(dialect: DialectName): MigrationProvider {
  const all: Record<string, Migration> = {
    '0001_initial': initial(dialect),
    '0003_billing': billing(),
    '0004_vpc_ranges': vpcRanges(),
    '0005_server_addresses': serverAddresses(),
    '0006_balance_floor_index': balanceFloorIndex(),
    '0007_settled_balance': settledBalance(),
    '0009_operator_audit': operatorAudit(dialect),
    '0010a_fault_rules_and_saved_states': faultRulesAndSavedStates(dialect),
    '0008_compute_jobs': computeJobs(dialect),
    '0010b_events_and_webhooks': eventsAndWebhooks(dialect),
    '0010c_compute_fault_rules': computeFaultRules(),
    '0014_event_cause': eventCause(),
    '0012_network_policy': networkPolicy(),
    '0013_payments': payments(dialect),
    '0014_server_metrics': serverMetrics(dialect),
    '0011_compute_seam': computeSeam(dialect),
    '0015_server_images': serverImages(),
    '0016_rdns_ptr_outbox': ptrOutbox(),
    '0016_fleet_perf_due_times': dueTimes(),
    '0016_failure-truth_server_status': serverStatus(),
    '0017_list-totals_account_counts': accountCounts(),
    '0018_withdrawn-options_ddos_index': ddosIndex(),
    '0018_engine-events_awaiting_script': awaitingScript(),
    '0018_cluster-hosts_hosts': clusterHosts(),
    '0019_host-work_failure': hostWorkFailure(),
  };
  return { getMigrations: async () => all };
}
