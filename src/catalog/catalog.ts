// Loads the catalog of regions, images and plans from the shipped catalog.json, or from
// the operator's CATALOG_FILE, checks it, and resolves references by id or uuid.

import { readFileSync } from 'node:fs';
import type { Catalog, Image, Plan, Region } from './catalog.types.ts';
import { parseMoney } from '../platform/money.ts';

const shippedFile = new URL('./catalog.json', import.meta.url);

interface CatalogFile {
  regions: Omit<Region, never>[];
  images: (Omit<Image, 'hourly_cost_micros'> & { hourly_cost: string })[];
  plans: (Omit<Plan, 'price_monthly_micros'> & { price_monthly: string })[];
}

export class CatalogError extends Error {
  override name = 'CatalogError';
}

export function loadCatalog(file: string | null, now: number): Catalog {
  const path = file ?? shippedFile;
  let parsed: CatalogFile;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as CatalogFile;
  } catch (error) {
    throw new CatalogError(`CATALOG_FILE ${String(path)} cannot be read as JSON: ${(error as Error).message}`);
  }
  const regions = new Map<number, Region>();
  for (const region of parsed.regions ?? []) {
    if (!Number.isInteger(region.id) || region.id < 101 || region.id % 100 === 0) throw new CatalogError(`catalog region ${region.id}: the id must be jurisdiction digits followed by a data-centre id 01-99`);
    regions.set(region.id, region);
  }
  const images = new Map<number, Image>();
  for (const { hourly_cost, ...image } of parsed.images ?? []) {
    for (const regionId of image.regions) if (!regions.has(regionId)) throw new CatalogError(`catalog image ${image.id}: unknown region ${regionId}`);
    images.set(image.id, { ...image, hourly_cost_micros: parseMoney(hourly_cost ?? '0') });
  }
  const plans = new Map<number, Plan>();
  for (const { price_monthly, ...plan } of parsed.plans ?? []) {
    for (const regionId of plan.regions ?? []) if (!regions.has(regionId)) throw new CatalogError(`catalog plan ${plan.id}: unknown region ${regionId}`);
    plans.set(plan.id, { ...plan, regions: plan.regions ?? [], price_monthly_micros: parseMoney(price_monthly) });
  }
  if (regions.size === 0 || images.size === 0 || plans.size === 0) throw new CatalogError('the catalog needs at least one region, image and plan');
  return { regions, images, plans, loadedAt: now };
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Finds an entry by integer id, numeric string or uuid. */
export function findIn<T extends { id: number; uuid: string }>(entries: Map<number, T>, ref: string | number): T | undefined {
  if (typeof ref === 'number' || /^\d+$/.test(ref)) return entries.get(Number(ref));
  if (!uuidPattern.test(ref)) return undefined;
  const wanted = ref.toLowerCase();
  for (const entry of entries.values()) if (entry.uuid === wanted) return entry;
  return undefined;
}

export function planAvailableIn(plan: Plan, regionId: number): boolean {
  return plan.regions.length === 0 || plan.regions.includes(regionId);
}
