// The power shown (compute/power-state.ts's shownPower) as an SQL expression over a `servers` row, for
// the queries that count or filter servers by it (the nubis_servers gauge, the operator's
// `power=` filter), so they agree with what the API shows: the transition under way, else
// `unknown` while the engine cannot be reached, `stopped` while the machine is missing, else the
// engine's reported power, else the power asked for.

import { type RawBuilder, sql } from 'kysely';
import { conditionStored } from '../compute/machine-conditions.ts';
import { unknownPower } from '../compute/power-state.ts';

/** True while a transition is under way at `now` (it is shown until `action_until`). */
function transitionUnderWaySql(now: number): RawBuilder<boolean> {
  return sql<boolean>`servers.action is not null and servers.action_until is not null and servers.action_until > ${now}`;
}

export function shownPowerSql(now: number): RawBuilder<string> {
  const unreachable = `%${conditionStored('EngineReachable', 'false')}%`;
  const missing = `%${conditionStored('MachinePresent', 'false')}%`;
  return sql<string>`case when ${transitionUnderWaySql(now)} then servers.action
    when servers.conditions like ${unreachable} then ${unknownPower}
    when servers.conditions like ${missing} then 'stopped'
    else coalesce(servers.observed_power, servers.power) end`;
}
