// Loads the catalog of regions, images and plans from the shipped catalog.json, or from
// the operator's CATALOG_FILE, checks it (schema, then the rules a schema cannot say:
// unique ids, known regions, non-overlapping address pools), and resolves references.

import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ConfigError, readSettingsFile } from '../config.ts';
import { parseMoney } from '../platform/money.ts';
import { schemaErrors } from './schema-check.ts';
import {
  CatalogFileSchema,
  type Catalog,
  type CatalogFile,
  type Image,
  type Plan,
  type Region,
} from './catalog.types.ts';

export const shippedCatalogFile = fileURLToPath(new URL('./catalog.json', import.meta.url));

/** A catalog that cannot be used; a ConfigError, so start-up stops with one line naming CATALOG_FILE. */
export class CatalogError extends ConfigError {
  override name = 'CatalogError';
}

/** `/regions/2/features/smtp` → `regions[2].features.smtp` */
function jsonPath(instancePath: string): string {
  return (
    instancePath
      .split('/')
      .filter(Boolean)
      .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : (i ? '.' : '') + part))
      .join('') || '(root)'
  );
}

export function loadCatalog(file: string | null, now: number): Catalog {
  const { raw, source } = readSettingsFile(
    { name: 'CATALOG_FILE', file, shipped: { what: 'catalog', file: shippedCatalogFile } },
    CatalogError,
  );
  const problems = checkCatalog(raw);
  if (problems.length) {
    const shown = problems.slice(0, 3).join('; ');
    throw new CatalogError(
      `${source} is not a valid catalog: ${shown}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}`,
    );
  }
  const parsed = raw as CatalogFile;
  const regions = new Map<number, Region>(parsed.regions.map((region) => [region.id, region]));
  const images = new Map<number, Image>(
    parsed.images.map(({ hourly_cost, ...image }) => [
      image.id,
      { ...image, hourly_cost_micros: parseMoney(hourly_cost) },
    ]),
  );
  const plans = new Map<number, Plan>(
    parsed.plans.map(({ price_monthly, ...plan }) => [
      plan.id,
      { ...plan, price_monthly_micros: parseMoney(price_monthly) },
    ]),
  );
  return { regions, images, plans, loadedAt: now };
}

/** Every problem of a parsed catalog file, as `path: reason`; empty when it is usable. */
export function checkCatalog(raw: unknown): string[] {
  const errors = schemaErrors(CatalogFileSchema, raw);
  if (errors.length) {
    // Each bad value once (a failed union reports every branch; the first says enough).
    const seen = new Set<string>();
    const problems: string[] = [];
    for (const error of errors) {
      // An unknown key is reported twice: as `schema is false` on the key and as additionalProperties on its object.
      if (error.keyword === 'boolean') continue;
      const path = jsonPath(error.instancePath);
      if (seen.has(path)) continue;
      seen.add(path);
      const extra =
        error.keyword === 'additionalProperties'
          ? ` (${(error.params as { additionalProperties?: string[] }).additionalProperties?.join(', ')})`
          : '';
      problems.push(`${path}: ${error.message}${extra}`);
    }
    return problems;
  }
  const catalog = raw as CatalogFile;
  const problems: string[] = [];
  const unique = (kind: 'regions' | 'images' | 'plans') => {
    const ids = new Set<number>();
    const uuids = new Set<string>();
    catalog[kind].forEach((entry, i) => {
      if (ids.has(entry.id)) problems.push(`${kind}[${i}].id: ${entry.id} is used twice`);
      if (uuids.has(entry.uuid)) problems.push(`${kind}[${i}].uuid: ${entry.uuid} is used twice`);
      ids.add(entry.id);
      uuids.add(entry.uuid);
    });
  };
  unique('regions');
  unique('images');
  unique('plans');

  const regionIds = new Set(catalog.regions.map((region) => region.id));
  const v4Blocks: { path: string; first: number; last: number }[] = [];
  const v6Prefixes = new Map<string, string>();
  catalog.regions.forEach((region, i) => {
    if (region.id % 100 === 0) problems.push(`regions[${i}].id: ${region.id} must end in a data-centre id 01-99`);
    if (region.ping_ip !== '' && isIP(region.ping_ip) === 0) problems.push(`regions[${i}].ping_ip: not an IP address`);
    region.pools.v4.forEach((cidr, j) => {
      const path = `regions[${i}].pools.v4[${j}]`;
      const block = parseV4Cidr(cidr);
      if (typeof block === 'string') {
        problems.push(`${path}: ${block}`);
        return;
      }
      const overlap = v4Blocks.find((other) => block.first <= other.last && other.first <= block.last);
      if (overlap) problems.push(`${path}: ${cidr} overlaps ${overlap.path}`);
      v4Blocks.push({ path, ...block });
    });
    (region.pools.v4_classless ?? []).forEach((cidr, j) => {
      const path = `regions[${i}].pools.v4_classless[${j}]`;
      if (!region.pools.v4.includes(cidr)) problems.push(`${path}: ${cidr} is not one of the region's v4 pools`);
      else if (Number(cidr.split('/')[1]) <= 24)
        problems.push(`${path}: ${cidr} is a whole /24 or more: only a part of a /24 takes a classless zone`);
    });
    if (region.pools.v6) {
      const key = expandV6Head(region.pools.v6);
      const other = v6Prefixes.get(key);
      if (other) problems.push(`regions[${i}].pools.v6: ${region.pools.v6} is also the pool of ${other}`);
      v6Prefixes.set(key, `regions[${i}]`);
    }
  });
  for (const kind of ['images', 'plans'] as const) {
    catalog[kind].forEach((entry, i) => {
      entry.regions.forEach((regionId, j) => {
        if (!regionIds.has(regionId)) problems.push(`${kind}[${i}].regions[${j}]: unknown region ${regionId}`);
      });
    });
  }
  return problems;
}

function parseV4Cidr(cidr: string): { first: number; last: number } | string {
  const [base, bits] = cidr.split('/');
  const octets = base!.split('.').map(Number);
  if (octets.some((octet) => octet > 255)) return `${cidr} is not an IPv4 address`;
  const prefix = Number(bits);
  // A pool keeps its network, gateway (.1) and broadcast addresses back: /30 is the smallest useful one.
  if (prefix < 8 || prefix > 30) return `${cidr}: the prefix must be /8 to /30`;
  const value = ((octets[0]! << 24) >>> 0) + (octets[1]! << 16) + (octets[2]! << 8) + octets[3]!;
  const size = 2 ** (32 - prefix);
  if (value % size !== 0) return `${cidr} has host bits set; write its network address`;
  return { first: value, last: value + size - 1 };
}

/** The three leading hextets of a /48, zero-padded, to compare prefixes written differently. */
function expandV6Head(prefix: string): string {
  const head = prefix.split('::')[0]!.split(':');
  while (head.length < 3) head.push('0');
  return head.map((hextet) => hextet.padStart(4, '0')).join(':');
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Finds an entry by integer id, numeric string or uuid. */
export function findIn<T extends { id: number; uuid: string }>(
  entries: Map<number, T>,
  ref: string | number,
): T | undefined {
  if (typeof ref === 'number' || /^\d+$/.test(ref)) return entries.get(Number(ref));
  if (!uuidPattern.test(ref)) return undefined;
  const wanted = ref.toLowerCase();
  for (const entry of entries.values()) if (entry.uuid === wanted) return entry;
  return undefined;
}

export function planAvailableIn(plan: Plan, regionId: number): boolean {
  return plan.regions.length === 0 || plan.regions.includes(regionId);
}
