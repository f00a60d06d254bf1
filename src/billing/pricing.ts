// What things cost: the invoice items a billable resource opens, priced from the catalog.
// Hourly prices are the monthly price over 730 hours; rules are in the decisions table (docs/decisions.md).

import type { Image, Plan, Region } from '../catalog/catalog.types.ts';
import { parseMoney } from '../platform/money.ts';
import { planHourlyMicros } from '../catalog/listing.service.ts';

export interface PricedItem {
  resourceType: 'server' | 'license' | 'backup' | 'snapshot' | 'ddos_protection' | 'floating_ip' | 'vpc' | 'bandwidth';
  description: string;
  amountHrMicros: number;
  amountMoMicros: number;
}

export const HOURS_PER_MONTH = 730;
/** Automatic backups cost this share of the server's price. */
export const BACKUP_PRICE_PERCENT = 20;
export const DDOS_PROTECTION_MONTHLY_MICROS = 10_000_000;
export const FLOATING_IP_MONTHLY_MICROS = 3_000_000;
export const VPC_MONTHLY_MICROS = 0;
/** Snapshot and backup storage per GB and month. */
export const SNAPSHOT_GB_MONTHLY_MICROS = 50_000;

const hourly = (monthly: number) => Math.ceil(monthly / HOURS_PER_MONTH);

/**
 * The items of a server's machine itself (its plan and its image's licence): paused while the
 * machine is lost, resumed by the action that makes it a new disk (docs/decisions.md).
 */
export const machineItems = ['server', 'license'] as const satisfies readonly PricedItem['resourceType'][];

export function serverItems(options: {
  plan: Plan;
  image: Image;
  backups: boolean;
  ddosProtection: boolean;
  name: string;
}): PricedItem[] {
  const { plan, image } = options;
  const items: PricedItem[] = [
    {
      resourceType: 'server',
      description: `${options.name} (${plan.name})`,
      amountHrMicros: planHourlyMicros(plan),
      amountMoMicros: plan.price_monthly_micros,
    },
  ];
  if (image.hourly_cost_micros > 0) {
    items.push({
      resourceType: 'license',
      description: `${options.name} ${image.name} licence`,
      amountHrMicros: image.hourly_cost_micros,
      amountMoMicros: image.hourly_cost_micros * HOURS_PER_MONTH,
    });
  }
  if (options.backups) items.push(backupItem(plan, options.name));
  if (options.ddosProtection) {
    items.push({
      resourceType: 'ddos_protection',
      description: `${options.name} DDoS protection`,
      amountHrMicros: hourly(DDOS_PROTECTION_MONTHLY_MICROS),
      amountMoMicros: DDOS_PROTECTION_MONTHLY_MICROS,
    });
  }
  return items;
}

export function backupItem(plan: Plan, name: string): PricedItem {
  const monthly = Math.round((plan.price_monthly_micros * BACKUP_PRICE_PERCENT) / 100);
  return {
    resourceType: 'backup',
    description: `${name} automatic backups`,
    amountHrMicros: hourly(monthly),
    amountMoMicros: monthly,
  };
}

export function snapshotItem(sizeGb: number, name: string): PricedItem {
  const monthly = sizeGb * SNAPSHOT_GB_MONTHLY_MICROS;
  return {
    resourceType: 'snapshot',
    description: `snapshot ${name} (${sizeGb} GB)`,
    amountHrMicros: hourly(monthly),
    amountMoMicros: monthly,
  };
}

export function floatingIpItem(address: string): PricedItem {
  return {
    resourceType: 'floating_ip',
    description: `floating IP ${address}`,
    amountHrMicros: hourly(FLOATING_IP_MONTHLY_MICROS),
    amountMoMicros: FLOATING_IP_MONTHLY_MICROS,
  };
}

/** Cost of the first hour of a set of items: what the balance must cover to create them. */
export function firstHourMicros(items: PricedItem[]): number {
  return items.reduce((sum, item) => sum + item.amountHrMicros, 0);
}

/** A region's price of a GB over a server's allowance (bandwidth policy `charge`), in micro-dollars. */
export function overagePerGbMicros(region: Region): number {
  return parseMoney(region.bandwidth_overage_per_gb ?? '0.01');
}

/** `gb` whole GB over the allowance, billed once (overage.sweep.ts): GB × the region's rate, exactly. */
export function bandwidthOverageItem(region: Region, gb: number, fromGb: number, name: string): PricedItem {
  const amount = gb * overagePerGbMicros(region);
  return {
    resourceType: 'bandwidth',
    description: `${name} bandwidth over the allowance: GB ${fromGb + 1} to ${fromGb + gb} (${gb} GB)`,
    amountHrMicros: amount,
    amountMoMicros: amount,
  };
}
