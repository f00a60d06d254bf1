// `nubis dns setup`: makes the reverse zones the catalog's pools need on the DNS server, and the
// zones of the IPv6 blocks handed out, then queues and publishes every address's PTR as it should
// be now (a DNS server added to a running deployment, or one that lost its data, catches up).
// Idempotent: a zone that exists is left as it is, a PTR is replaced with the same.

import { describeAllocated } from '../network/ip-pool.ts';
import type { Platform } from '../platform/context.ts';
import { transaction } from '../db/transaction.ts';
import { ptrOutboxRepository } from './ptr-outbox.repository.ts';
import { publishPendingPtrs, queuePtr } from './reverse-dns.service.ts';
import type { ReverseZone } from './reverse-dns-server.ts';
import { poolZones, ptrPlace } from './reverse-zones.ts';
import { ptrName } from './ptr-name.ts';

export interface DnsSetupReport {
  created: string[];
  present: string[];
  /** Classless zones whose parent /24 is not on this DNS server: its holder must add the CNAMEs. */
  cnamesForParent: { zone: string; cnames: { name: string; target: string }[] }[];
  /** PTRs queued, and how many of them were published before setup ended (the rest retry). */
  queued: number;
  published: number;
}

export async function setupReverseDns(ctx: Platform): Promise<DnsSetupReport> {
  const server = ctx.reverseDns;
  if (!server) throw new Error('dns setup needs PDNS_API_URL and PDNS_API_KEY');
  const report: DnsSetupReport = { created: [], present: [], cnamesForParent: [], queued: 0, published: 0 };
  const desired = await ptrOutboxRepository.desired(ctx.db);
  const ptrs = [
    ...desired.own.map((row) => ({ address: describeAllocated(row).address, name: ptrName(row, row) })),
    ...desired.floating.map((row) => ({
      address: row.address,
      name: ptrName(row, row.hostname === null ? null : { hostname: row.hostname }),
    })),
  ];
  // A /24 first, so that the CNAMEs of the classless zones inside it have somewhere to go.
  const zones = new Map<string, ReverseZone>();
  for (const zone of poolZones(ctx.catalog).sort((a, b) => Number(!!a.parent) - Number(!!b.parent)))
    zones.set(zone.name, zone);
  for (const ptr of ptrs) {
    const { zone } = ptrPlace(ctx.catalog, ptr.address);
    if (!zones.has(zone.name)) zones.set(zone.name, zone);
  }
  for (const zone of zones.values()) {
    const outcome = await server.ensureZone(zone);
    (outcome.created ? report.created : report.present).push(zone.name);
    if (!outcome.cnames && zone.parent) report.cnamesForParent.push(zone.parent);
  }
  await transaction(ctx, async (trx) => {
    for (const ptr of ptrs) await queuePtr(ctx, trx, ptr.address, ptr.name);
  });
  report.queued = ptrs.length;
  for (let round = await publishPendingPtrs(ctx); round > 0; round = await publishPendingPtrs(ctx))
    report.published += round;
  return report;
}
