// What each server may send, as the engine enforces it: the TCP and UDP ports its account may
// not reach (src/accounts/port-policy.ts), with the addresses the engine knows its traffic by.
// Derived from the rows every time, so a first run, a retry and reconciliation all write the
// same rules, and an operator's change reaches running servers at the next reconciliation.

import type { Platform } from '../platform/context.ts';
import { blockedPortsOf } from '../accounts/port-policy.ts';
import type { ServerEgress } from './server-egress.ts';
import type { EgressPolicy } from './compute-driver.ts';
import { computeRepository } from './compute.repository.ts';

/** Servers whose egress is read at once: what is held is a page's, whatever the fleet. */
const egressPageSize = 5000;

/** Every server's egress policy, read now a page at a time (servers whose region left the catalog are left out). */
export async function* serversEgress(ctx: Platform): AsyncGenerator<ServerEgress[]> {
  const defaults = { TCP: ctx.config.blockedPortsTcp, UDP: ctx.config.blockedPortsUdp };
  let after = 0;
  for (;;) {
    const { servers, addresses, floating } = await computeRepository.egressRows(ctx.db, after, egressPageSize);
    if (servers.length === 0) return;
    after = (servers[servers.length - 1] as (typeof servers)[number]).id;
    const ownBy = groupBy(addresses, (a) => a.holder_uuid);
    const floatingBy = groupBy(floating, (f) => f.server_id);
    const egress: ServerEgress[] = [];
    for (const server of servers) {
      const region = ctx.catalog.regions.get(server.region_id);
      if (!region) continue;
      const own = ownBy.get(server.uuid) ?? [];
      egress.push({
        uuid: server.uuid,
        region,
        ipv4: own.find((a) => a.version === 4)?.address ?? null,
        ipv6: own.find((a) => a.version === 6)?.address ?? null,
        floating: (floatingBy.get(server.id) ?? []).map((f) => f.address),
        blocked: blockedPortsOf(defaults, server),
      });
    }
    yield egress;
  }
}

function groupBy<T, K>(rows: T[], key: (row: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group) group.push(row);
    else groups.set(key(row), [row]);
  }
  return groups;
}

/** The network policy the engine converges every machine with: every region, every server's egress. */
export async function egressPolicy(ctx: Platform): Promise<EgressPolicy> {
  return { regions: [...ctx.catalog.regions.values()], servers: () => serversEgress(ctx) };
}

/** Has the engine hold every server's current policy (a full reconciliation's part; no engine: nothing to hold). */
export async function enforceEgress(ctx: Platform): Promise<void> {
  const engine = ctx.compute.engine;
  if (!engine) return;
  await engine.convergeEgress(await egressPolicy(ctx));
}
