// The public listings of the catalog: the regions, images and plans offered (each API version
// shapes them: api/v1_3/listing.routes.ts, api/v1/shapes.ts), and the rules they share.

import type { Platform } from '../platform/context.ts';
import type { Image, Plan, Region } from './catalog.types.ts';
import { planAvailableIn } from './catalog.ts';
import { NotFound } from '../platform/errors.ts';

/** The jurisdiction ("generation") of a region: the digits before its two-digit data-centre id. */
export function generationOf(regionId: number): number {
  return Math.floor(regionId / 100);
}

/** The region a listing names by id (the legacy API's DCID), or 404. */
export function listedRegion(ctx: Platform, regionId: number): Region {
  const region = ctx.catalog.regions.get(regionId);
  if (!region) throw new NotFound('location');
  return region;
}

/** Every region of the catalog, as catalog entries for any adapter to shape. */
export function regionsOffered(ctx: Platform): Region[] {
  return [...ctx.catalog.regions.values()];
}

/** Images offered in the region (every image without one), as catalog entries for any adapter to shape. */
export function imagesOffered(ctx: Platform, regionId?: number): Image[] {
  return [...ctx.catalog.images.values()].filter((image) => regionId === undefined || image.regions.includes(regionId));
}

/** Plans sold in the region (every plan without one). */
export function plansOffered(ctx: Platform, regionId?: number): Plan[] {
  return [...ctx.catalog.plans.values()].filter((plan) => regionId === undefined || planAvailableIn(plan, regionId));
}

/** Whether a Windows image offered in the region fits the plan's disk (server create's rule). */
export function planRunsWindows(ctx: Platform, plan: Plan, regionId: number): boolean {
  return imagesOffered(ctx, regionId).some((image) => image.os_type === 'windows' && image.min_disk_gb <= plan.disk_gb);
}

/** Hourly price of a plan: the monthly price over 730 hours, rounded up to the micro-dollar. */
export function planHourlyMicros(plan: Plan): number {
  return Math.ceil(plan.price_monthly_micros / 730);
}

/** The regions a plan is sold in: its own list, or every region of the catalog when it has none. */
export function planRegions(ctx: Platform, plan: Plan): number[] {
  return plan.regions.length ? plan.regions : [...ctx.catalog.regions.keys()];
}

/** When the catalog was read (clock ms): the listings' timestamp. */
export function catalogLoadedAt(ctx: Platform): number {
  return ctx.catalog.loadedAt;
}
