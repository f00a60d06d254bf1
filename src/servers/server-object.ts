// The spec's Server object, mapped from ServerDetails in one place (list, info and create all
// send it). Fields the spec leaves open are settled in the decisions table (docs/decisions.md).

import { isoSeconds } from '../platform/clock.ts';
import { toCents } from '../platform/money.ts';
import type { NetworkInterface, ServerDetails } from './server-details.ts';
import type { ScriptView } from './script-outcome.ts';
import type { OveragePolicy } from './overage.ts';

export interface ServerObject {
  id: number;
  uuid: string;
  name: string;
  power: string;
  created: string;
  price: number;
  iface: { v4: NetworkInterface[]; v6: NetworkInterface[] | null } | null;
  bandwidth: { usage: number; limit: number; point: number; applied: OveragePolicy | null };
  info: {
    features: string[];
    options: { bw_overage_policy: string; bw_overage_tresgold: number; bw_overage_threshold: number };
    reg_country: string;
    reg_city: string;
    reg_id: number;
    img_id: number;
    plan_id: number;
    password: string;
    ipv6_enabled: boolean;
    script_url: string | null;
    region: string;
    image: string;
    plan: string;
    price: number;
    ddos_protection: boolean;
    backup_enabled: boolean;
    private_network: boolean;
    hostname: string;
    ssh_key_id: number | null;
    script: ScriptView | null;
  };
}

/** The features a server has on, by name (the spec leaves their shape open). */
function featuresOf(details: ServerDetails): string[] {
  const { row } = details;
  const features: string[] = [];
  if (row.ipv6_enabled === 1) features.push('ipv6');
  if (row.backup_enabled === 1) features.push('auto_backups');
  if (row.ddos_protection === 1) features.push('ddos_protection');
  if (details.privateNetwork) features.push('private_network');
  if (row.rescue === 1) features.push('rescue_mode');
  return features;
}

// Servers listed in order were mostly created in runs within the same second: reuse its text.
let lastCreated = { second: -1, text: '' };
function createdText(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastCreated.second) lastCreated = { second, text: isoSeconds(ms) };
  return lastCreated.text;
}

export function toServerObject(details: ServerDetails): ServerObject {
  const { row, region, image, plan } = details;
  const price = toCents(details.monthlyPriceMicros);
  return {
    id: row.id,
    uuid: row.uuid,
    name: row.name,
    power: details.power,
    created: createdText(row.created_at),
    price,
    iface: details.interfaces,
    bandwidth: {
      usage: details.bandwidthUsageGb,
      limit: plan.bandwidth_gb,
      point: details.overage.pointGb,
      applied: details.overage.over ? details.overage.policy : null,
    },
    info: {
      features: featuresOf(details),
      options: {
        bw_overage_policy: details.options.bw_overage_policy,
        bw_overage_tresgold: details.options.bw_overage_threshold,
        bw_overage_threshold: details.options.bw_overage_threshold,
      },
      reg_country: region.country,
      reg_city: region.city,
      reg_id: region.id,
      img_id: image.id,
      plan_id: plan.id,
      password: details.rootPassword,
      ipv6_enabled: row.ipv6_enabled === 1,
      script_url: row.script_url,
      region: region.city,
      image: image.name,
      plan: plan.name,
      price,
      ddos_protection: row.ddos_protection === 1,
      backup_enabled: row.backup_enabled === 1,
      private_network: details.privateNetwork,
      hostname: row.hostname,
      ssh_key_id: row.ssh_key_id,
      script: details.script,
    },
  };
}
