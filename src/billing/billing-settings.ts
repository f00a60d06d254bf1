// The operator's billing settings: the seller's details (printed on every invoice document, and
// the bank account a transfer goes to) and the VAT rate per customer country. Read once from the
// shipped `billing.json` (examples) or the operator's BILLING_FILE; a bad file stops start-up.

import { fileURLToPath } from 'node:url';
import { ConfigError, readSettingsFile } from '../config.ts';
import { isCountryCode } from '../accounts/countries.ts';
import type { Platform } from '../platform/context.ts';

export const shippedBillingFile = fileURLToPath(new URL('./billing.json', import.meta.url));

export interface Seller {
  name: string;
  address: string[];
  vat_id?: string;
  email?: string;
  bank: { holder: string; iban: string; bic?: string };
}

interface BillingFile {
  seller: Seller;
  vat_percent: Record<string, number>;
  vat_default_percent: number;
}

const isText = (value: unknown, max = 200): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;
const isPercent = (value: unknown): value is number =>
  typeof value === 'number' && value >= 0 && value <= 100 && Math.abs(value * 100 - Math.round(value * 100)) < 1e-9;

/** What is wrong with a parsed billing file, as `path: reason`; empty when it is usable. */
export function billingFileProblems(raw: unknown): string[] {
  const problems: string[] = [];
  const file = raw as Partial<BillingFile> | null;
  const seller = file?.seller as Partial<Seller> | undefined;
  if (!seller || typeof seller !== 'object') return ['seller: must be an object'];
  if (!isText(seller.name)) problems.push('seller.name: must be text of 1 to 200 characters');
  if (!Array.isArray(seller.address) || !seller.address.every((line) => isText(line)))
    problems.push('seller.address: must be a list of lines of text');
  for (const key of ['vat_id', 'email'] as const)
    if (seller[key] !== undefined && !isText(seller[key], 254)) problems.push(`seller.${key}: must be text`);
  if (!seller.bank || !isText(seller.bank.holder) || !isText(seller.bank.iban, 50))
    problems.push('seller.bank: must give holder and iban');
  if (!file?.vat_percent || typeof file.vat_percent !== 'object') problems.push('vat_percent: must be an object');
  else
    for (const [country, percent] of Object.entries(file.vat_percent)) {
      if (!isCountryCode(country) || country !== country.toUpperCase())
        problems.push(`vat_percent.${country}: not an upper-case ISO 3166-1 country code`);
      if (!isPercent(percent))
        problems.push(`vat_percent.${country}: must be a percentage from 0 to 100, at most 2 decimals`);
    }
  if (!isPercent(file?.vat_default_percent))
    problems.push('vat_default_percent: must be a percentage from 0 to 100, at most 2 decimals');
  return problems;
}

export interface BillingSettings {
  seller: Seller;
  /** VAT in hundredths of a percent (basis points) by country code. */
  vatBp: Map<string, number>;
  defaultVatBp: number;
}

const loaded = new WeakMap<Platform['config'], BillingSettings>();

/** The billing settings of this configuration (read from its file once). */
export function billingSettings(ctx: Pick<Platform, 'config'>): BillingSettings {
  let settings = loaded.get(ctx.config);
  if (!settings) {
    settings = loadBillingSettings(ctx.config.billingFile);
    loaded.set(ctx.config, settings);
  }
  return settings;
}

export function loadBillingSettings(file: string | null): BillingSettings {
  const { raw, source } = readSettingsFile({
    name: 'BILLING_FILE',
    file,
    shipped: { what: 'billing settings', file: shippedBillingFile },
  });
  const problems = billingFileProblems(raw);
  if (problems.length) throw new ConfigError(`${source} is not valid: ${problems.slice(0, 3).join('; ')}`);
  const parsed = raw as BillingFile;
  return {
    seller: parsed.seller,
    vatBp: new Map(Object.entries(parsed.vat_percent).map(([country, percent]) => [country, basisPoints(percent)])),
    defaultVatBp: basisPoints(parsed.vat_default_percent),
  };
}

function basisPoints(percent: number): number {
  return Math.round(percent * 100);
}

/** The VAT rate (basis points) a payment from a customer in `country` carries. */
export function vatRateBp(ctx: Pick<Platform, 'config'>, country: string): number {
  const settings = billingSettings(ctx);
  return settings.vatBp.get(country.toUpperCase()) ?? settings.defaultVatBp;
}

/** The tax on a net amount at a rate, rounded to the cent (half away from zero), in micro-dollars. */
export function taxOf(netMicros: number, rateBp: number): number {
  const exact = (Math.abs(netMicros) * rateBp) / 10_000;
  return Math.sign(netMicros) * Math.round(exact / 10_000) * 10_000;
}
